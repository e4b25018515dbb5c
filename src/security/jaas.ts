// Kafka's `sasl.jaas.config` values, in JAAS's own syntax:
//   org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" user_alice="alice-secret";
// a login module class, a control flag, then name=value options (values quoted or bare) up to a ';'.
// Kafka allows exactly one module per value (JaasContext.loadServerContext); so does krill.

export interface JaasModule {
  loginModule: string;
  controlFlag: 'required' | 'requisite' | 'sufficient' | 'optional';
  options: ReadonlyMap<string, string>;
}

const FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional']);

/** Splits a JAAS entry into tokens: words, quoted strings (with \" and \\ escapes), '=' and ';'. */
function tokens(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '=' || c === ';') {
      out.push(c);
      i++;
    } else if (c === '"') {
      let value = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        value += text[i++];
      }
      if (i >= text.length) throw new Error('unterminated quoted value');
      i++;
      // A leading NUL keeps a quoted value apart from a bare word, whatever it contains.
      out.push(`\0${value}`);
    } else {
      let word = '';
      while (i < text.length && !/[\s=;"]/.test(text[i])) word += text[i++];
      out.push(word);
    }
  }
  return out;
}

const bare = (t: string | undefined): t is string => t !== undefined && t !== '=' && t !== ';' && !t.startsWith('\0');

/** Parses one `sasl.jaas.config` value; throws an Error saying what is wrong. */
export function parseJaasConfig(text: string): JaasModule {
  const t = tokens(text);
  const [loginModule, flag] = t;
  if (!bare(loginModule)) throw new Error('expected a login module class name first');
  if (!bare(flag) || !FLAGS.has(flag.toLowerCase()))
    throw new Error(`expected a control flag (required, requisite, sufficient or optional) after ${loginModule}`);
  const options = new Map<string, string>();
  let i = 2;
  while (i < t.length && t[i] !== ';') {
    const [name, eq, value] = [t[i], t[i + 1], t[i + 2]];
    if (!bare(name) || eq !== '=' || value === undefined || value === '=' || value === ';') throw new Error(`expected name=value at '${t[i]}'`);
    options.set(name, value.startsWith('\0') ? value.slice(1) : value);
    i += 3;
  }
  if (t[i] !== ';') throw new Error("the login module's options must end with ';'");
  if (i + 1 < t.length) throw new Error('only one login module may be given (as in Kafka)');
  return { loginModule, controlFlag: flag.toLowerCase() as JaasModule['controlFlag'], options };
}
