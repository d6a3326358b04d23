// A function's log stream read back: Powertools writes one JSON object per line; anything else
// (a runtime's plain text) is kept as its message.

export type LogLine = Readonly<Record<string, unknown>> & { readonly message?: unknown };

export function functionLogLines(lines: readonly string[]): LogLine[] {
  return lines.map((line): LogLine => {
    try {
      const parsed = JSON.parse(line) as unknown;
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as LogLine)
        : { message: line };
    } catch {
      return { message: line };
    }
  });
}
