/** How tables are printed: `wide` (`-o wide`) prints every cell whole, as `kubectl get -o wide` shows more. */
export interface TableStyle {
  readonly wide?: boolean;
}

/** A cell's most characters: `cut` in the default output, no limit in the wide one. */
export const cellWidth = (cut: number, style: TableStyle = {}): number => (style.wide === true ? Infinity : cut);

/** A plain-text table: columns padded to their widest cell, cells longer than `maxWidth` cut with an ellipsis. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[], maxWidth = 60): string {
  const cut = (cell: string) => (cell.length > maxWidth ? `${cell.slice(0, maxWidth - 1)}…` : cell);
  const cells = [headers, ...rows].map((row) => row.map(cut));
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const [head, ...body] = cells;
  return [line(head ?? []), widths.map((w) => '─'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** `+1m05s` relative to a start, for timelines on a virtual clock. */
export function offset(at: number, start: number): string {
  const total = Math.max(0, Math.round((at - start) / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `+${h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}m`}${String(s).padStart(2, '0')}s`;
}
