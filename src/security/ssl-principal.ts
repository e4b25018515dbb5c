// The principal of a TLS client, as Kafka's DefaultKafkaPrincipalBuilder makes it: User:<name>, the name
// being the client certificate's distinguished name in RFC 2253 form (what Java's X500Principal.getName()
// gives: the RDNs last to first, comma-separated, special characters escaped) passed through
// ssl.principal.mapping.rules (Kafka's SslPrincipalMapper). A client without a certificate is ANONYMOUS.
import type { X509Certificate } from 'node:crypto';
import { ConfigError } from '../config-value.js';

interface Rule {
  /** null: DEFAULT, the name unchanged. */
  pattern: RegExp | null;
  replacement: string;
  lower: boolean;
  upper: boolean;
}

// Kafka's rule grammar: DEFAULT, or RULE:pattern/replacement/ with an optional L or U, `\/` escaping a slash.
const RULE = /^\s*(?:(DEFAULT)|RULE:((?:\\.|[^\\/])*)\/((?:\\.|[^\\/])*)\/([LU]?))\s*(?:,|$)/;

export class SslPrincipalMapper {
  private constructor(private readonly rules: readonly Rule[]) {}

  /** Parses ssl.principal.mapping.rules; throws ConfigError naming the rule it cannot read. */
  static parse(spec: string): SslPrincipalMapper {
    const rules: Rule[] = [];
    let rest = spec.trim();
    while (rest !== '') {
      const m = RULE.exec(rest);
      if (!m) throw new ConfigError(`ssl.principal.mapping.rules: invalid rule '${rest.split(',')[0]}' (expected DEFAULT or RULE:pattern/replacement/[LU])`);
      if (m[1]) rules.push({ pattern: null, replacement: '', lower: false, upper: false });
      else {
        let pattern: RegExp;
        try {
          pattern = new RegExp(m[2], 'g');
        } catch (err) {
          throw new ConfigError(`ssl.principal.mapping.rules: pattern '${m[2]}' is not a regular expression: ${(err as Error).message}`);
        }
        rules.push({ pattern, replacement: javaReplacement(m[3]), lower: m[4] === 'L', upper: m[4] === 'U' });
      }
      rest = rest.slice(m[0].length).trim();
    }
    return new SslPrincipalMapper(rules.length > 0 ? rules : [{ pattern: null, replacement: '', lower: false, upper: false }]);
  }

  /** The principal name for `dn`, by the first rule whose pattern matches all of it; null when none does. */
  name(dn: string): string | null {
    for (const rule of this.rules) {
      if (!rule.pattern) return dn;
      // Java's Matcher.matches(): the whole name, not a part of it.
      const whole = new RegExp(`^(?:${rule.pattern.source})$`);
      if (!whole.test(dn)) continue;
      const out = dn.replace(rule.pattern, rule.replacement);
      return rule.lower ? out.toLowerCase() : rule.upper ? out.toUpperCase() : out;
    }
    return null;
  }
}

/** Java's replacement syntax ($1, \$ for a dollar) in JavaScript's ($1, $$). */
function javaReplacement(java: string): string {
  return java.replace(/\\(.)|\$/g, (_all, escaped: string | undefined) => (escaped === undefined ? '$' : escaped === '$' ? '$$' : escaped));
}

/**
 * The certificate's subject in RFC 2253 form. Node prints the subject as OpenSSL does with RFC 2253
 * escaping, one RDN a line from first to last (multi-valued ones joined by " + "); RFC 2253 lists them
 * from last to first, comma-separated.
 */
export function rfc2253(cert: X509Certificate): string {
  return cert.subject
    .split('\n')
    .filter((line) => line !== '')
    .reverse()
    .map((rdn) => rdn.split(' + ').join('+'))
    .join(',');
}
