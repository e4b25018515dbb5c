// Java properties text, as Kafka's server.properties and meta.properties are written: one `key=value`,
// `key: value` or `key value` a line, `#` and `!` comment lines, a backslash at the end of a line joining
// the next one to it (leading blanks of that line dropped). Backslash escapes inside keys and values
// (\uXXXX, \=) are not decoded: no Kafka config name or value krill reads needs them. A later key wins.

export interface Properties {
  /** Key → value, in the order first given. */
  values: Record<string, string>;
  /** Lines with no key and separator (a key alone, a line starting with '='), trimmed, in order. */
  malformed: string[];
}

export function parseProperties(text: string): Properties {
  const values: Record<string, string> = {};
  const malformed: string[] = [];
  for (const line of text.replace(/\\\r?\n\s*/g, '').split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith('!')) continue;
    const m = /^([^=:\s]+)\s*[=:\s]\s*(.*)$/.exec(trimmed);
    if (m) values[m[1]] = m[2];
    else malformed.push(trimmed);
  }
  return { values, malformed };
}
