// One config value, broker- or topic-level, checked as Kafka's ConfigDef checks it: the kinds a config
// can be, the rule a value must meet, and the ConfigError naming every value that does not.

export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : problems;
    super(list.length === 1 ? list[0] : `${list.length} config problems:\n  ${list.join('\n  ')}`);
    this.problems = list;
    this.name = 'ConfigError';
  }
}

/** A value as given: properties files and --set give strings; the embedded API may give numbers and booleans. */
export type ConfigValue = string | number | boolean;

export type Kind = 'int' | 'long' | 'double' | 'bool' | 'string' | 'list' | 'enum';

export interface ValueRule {
  kind: Kind;
  min?: number;
  max?: number;
  choices?: readonly string[];
}

export const INT_MAX = 2147483647;

/**
 * A frozen table of configs by name with no prototype: a name a client sends ('constructor', 'toString')
 * must not find an entry that Object.prototype gives every object.
 */
export function configTable<T>(entries: Record<string, T>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}

/** A given value as the string Kafka would read from a properties file. */
export function asText(name: string, raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'boolean') return String(raw);
  throw new ConfigError(`${name}: ${raw === null ? 'null' : typeof raw} is not a value (a string, number or boolean)`);
}

/** Checks `raw` against `rule`; returns the value normalised (trimmed; a boolean in lower case) or throws ConfigError. */
export function checkValue(name: string, raw: string, rule: ValueRule): string {
  const value = raw.trim();
  switch (rule.kind) {
    case 'int':
    case 'long': {
      if (!/^-?\d+$/.test(value)) throw new ConfigError(`${name}: '${raw}' is not an integer`);
      const n = Number(value);
      if (rule.kind === 'int' && (n > INT_MAX || n < -INT_MAX - 1)) throw new ConfigError(`${name}: ${raw} is out of int range`);
      if (rule.min !== undefined && n < rule.min) throw new ConfigError(`${name}: ${raw} is below the minimum ${rule.min}`);
      if (rule.max !== undefined && n > rule.max) throw new ConfigError(`${name}: ${raw} is above the maximum ${rule.max}`);
      return value;
    }
    case 'double': {
      if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value)) throw new ConfigError(`${name}: '${raw}' is not a number`);
      const n = Number(value);
      if (rule.min !== undefined && n < rule.min) throw new ConfigError(`${name}: ${raw} is below the minimum ${rule.min}`);
      if (rule.max !== undefined && n > rule.max) throw new ConfigError(`${name}: ${raw} is above the maximum ${rule.max}`);
      return value;
    }
    case 'bool': {
      // Kafka's ConfigDef reads booleans without regard to case.
      const lower = value.toLowerCase();
      if (lower !== 'true' && lower !== 'false') throw new ConfigError(`${name}: '${raw}' is not true or false`);
      return lower;
    }
    case 'enum':
      if (!rule.choices!.includes(value)) throw new ConfigError(`${name}: '${raw}' is not one of ${rule.choices!.join(', ')}`);
      return value;
    case 'list':
      if (rule.choices) {
        for (const item of value.split(',')) {
          if (!rule.choices.includes(item.trim())) throw new ConfigError(`${name}: '${item}' is not one of ${rule.choices.join(', ')}`);
        }
      }
      return value;
    default:
      return value;
  }
}
