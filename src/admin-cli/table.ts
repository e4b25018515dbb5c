// Tables for people: left-aligned columns, padded to their widest cell, a header in capitals.

export interface Column {
  key: string;
  header?: string;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (Array.isArray(v)) return v.join(',');
  return String(v);
}

export function formatTable(rows: object[], columns: Column[]): string {
  const header = columns.map((c) => c.header ?? c.key.replace(/[A-Z]/g, (m) => `-${m}`).toUpperCase());
  const body = rows.map((r) => columns.map((c) => cell((r as Record<string, unknown>)[c.key])));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [header, ...body].map(line).join('\n') + '\n';
}

export function columns(...keys: string[]): Column[] {
  return keys.map((key) => ({ key }));
}
