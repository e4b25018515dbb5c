// Kafka's Rate over a SampledStat, as its quota sensors measure: `samples` windows of `windowMs` each,
// the oldest reused once all are full. The rate is the total of the live samples over the time they
// span, where that span counts at least samples-1 full windows, so that a client's first burst is spread
// over (samples-1) windows rather than measured over the few milliseconds it took.

interface Sample {
  startMs: number;
  value: number;
}

export interface RateConfig {
  /** quota.window.num */
  samples: number;
  /** quota.window.size.seconds, in ms */
  windowMs: number;
}

export class Rate {
  private readonly samples: Sample[] = [];
  private current = 0;

  constructor(private readonly config: RateConfig) {}

  record(value: number, nowMs: number): void {
    let sample = this.samples[this.current];
    if (!sample) {
      sample = { startMs: nowMs, value: 0 };
      this.samples.push(sample);
    } else if (nowMs >= sample.startMs + this.config.windowMs) sample = this.advance(nowMs);
    sample.value += value;
  }

  /** The rate per second at `nowMs`. */
  measure(nowMs: number): number {
    this.purgeObsolete(nowMs);
    let total = 0;
    for (const s of this.samples) total += s.value;
    return total / (this.windowSizeMs(nowMs) / 1000);
  }

  /** Kafka's Rate.windowSize: the span the rate is taken over, never less than samples-1 windows. */
  windowSizeMs(nowMs: number): number {
    this.purgeObsolete(nowMs);
    const { samples, windowMs } = this.config;
    let oldest = nowMs;
    for (const s of this.samples) oldest = Math.min(oldest, s.startMs);
    let elapsed = nowMs - oldest;
    const fullWindows = Math.floor(elapsed / windowMs);
    if (fullWindows < samples - 1) elapsed += (samples - 1 - fullWindows) * windowMs;
    return elapsed;
  }

  private advance(nowMs: number): Sample {
    this.current = (this.current + 1) % this.config.samples;
    let sample = this.samples[this.current];
    if (!sample) {
      sample = { startMs: nowMs, value: 0 };
      this.samples.push(sample);
    } else {
      sample.startMs = nowMs;
      sample.value = 0;
    }
    return sample;
  }

  /** Samples older than all the windows together count for nothing (Kafka's purgeObsoleteSamples). */
  private purgeObsolete(nowMs: number): void {
    const expireAge = this.config.samples * this.config.windowMs;
    for (const s of this.samples) {
      if (nowMs - s.startMs >= expireAge) {
        s.startMs = nowMs;
        s.value = 0;
      }
    }
  }
}
