/**
 * The one Markdown table writer of the bench: the figure pages (report/figures.ts) and every summary a command
 * prints use it, so a table looks the same wherever it is read. A `|` inside a cell is escaped.
 */
export interface TableOptions {
  /** Per column; a right-aligned column's rule is `---:` (numbers). Default: every column left-aligned. */
  readonly align?: readonly ('left' | 'right')[];
  /** Pad each column to its widest cell, for a table read in a terminal rather than rendered. */
  readonly pad?: boolean;
}

export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string {
  const escaped = (cells: readonly string[]) => cells.map((cell) => cell.replaceAll('|', '\\|'));
  const head = escaped(header);
  const body = rows.map(escaped);
  if (options.pad) {
    const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
    const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
    return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
  }
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const rule = head.map((_, i) => (options.align?.[i] === 'right' ? '---:' : '---'));
  return [line(head), `|${rule.join('|')}|`, ...body.map(line)].join('\n');
}
