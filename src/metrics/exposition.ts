// Prometheus's text exposition format (version 0.0.4): one `# HELP` and one `# TYPE` line per metric
// family, then its samples, `name{label="value",...} number`. Label values escape backslash, double quote
// and newline; HELP text escapes backslash and newline. A family's samples must be contiguous, which is why
// samples are added to a family object and written out together.

export type MetricType = 'counter' | 'gauge' | 'histogram';

export type Labels = Readonly<Record<string, string | number>>;

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}

function formatLabels(labels: Labels | undefined): string {
  if (!labels) return '';
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(String(v))}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

export class MetricFamily {
  private readonly lines: string[] = [];

  constructor(
    readonly name: string,
    readonly type: MetricType,
    readonly help: string,
  ) {}

  /** A counter's or a gauge's sample (a counter's name ends in _total, as Prometheus names counters). */
  sample(value: number, labels?: Labels): this {
    this.lines.push(`${this.name}${formatLabels(labels)} ${formatNumber(value)}`);
    return this;
  }

  /**
   * A histogram's samples: `counts[i]` observations fell at or below `bounds[i]` and above the bound before it,
   * `counts[bounds.length]` above the last bound. Buckets are written cumulatively, with +Inf, then _sum and _count.
   */
  histogram(bounds: readonly number[], counts: ArrayLike<number>, sum: number, labels: Labels = {}): this {
    let cumulative = 0;
    for (let i = 0; i <= bounds.length; i++) {
      cumulative += counts[i];
      const le = i < bounds.length ? formatNumber(bounds[i]) : '+Inf';
      this.lines.push(`${this.name}_bucket${formatLabels({ ...labels, le })} ${cumulative}`);
    }
    this.lines.push(`${this.name}_sum${formatLabels(labels)} ${formatNumber(sum)}`);
    this.lines.push(`${this.name}_count${formatLabels(labels)} ${cumulative}`);
    return this;
  }

  render(): string {
    const help = this.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
    return `# HELP ${this.name} ${help}\n# TYPE ${this.name} ${this.type}\n${this.lines.map((l) => `${l}\n`).join('')}`;
  }
}

/** A whole scrape: families in the order added. */
export class Exposition {
  private readonly families: MetricFamily[] = [];

  family(name: string, type: MetricType, help: string): MetricFamily {
    const f = new MetricFamily(name, type, help);
    this.families.push(f);
    return f;
  }

  render(): string {
    return this.families.map((f) => f.render()).join('');
  }
}
