// `explain NODE` and `simulate FILE --explain NODE`: the Node's timeline as a table (times as ISO 8601,
// or `+1m05s` from a simulation's start), or as JSON.
import type { NodeExplanation } from '../explain/timeline.js';
import { cellWidth, offset, table, type TableStyle } from './table.js';

/** Long texts (a reason, pods left) are cut to this in the default table; `-o wide` shows them whole. */
const TEXT_WIDTH = 120;

export function formatExplanation(
  explanation: NodeExplanation,
  style: TableStyle & { readonly start?: number } = {},
): string {
  const machine = explanation.instanceId !== undefined ? ` (${explanation.instanceId})` : '';
  const head = `Node ${explanation.node}${machine}`;
  if (explanation.entries.length === 0) return `${head}: nothing reported about it.`;
  const when = (at: number) => (style.start !== undefined ? offset(at, style.start) : new Date(at).toISOString());
  const rows = explanation.entries.map((e) => [when(e.at), e.kind.toUpperCase(), e.source, e.text]);
  return `${head}\n${table(['TIME', 'WHAT', 'FROM', 'DETAIL'], rows, cellWidth(TEXT_WIDTH, style))}`;
}

export const explanationJson = (explanation: NodeExplanation) => ({
  ...explanation,
  entries: explanation.entries.map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
});
