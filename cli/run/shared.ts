// What the commands share once they run: output, flag readers, the report's exit code, the clock.
import type { ReportSummary } from '../../lib/report/summary.js';
import { humanDuration } from '@ec2-node-reconciler/model/duration.js';
import { CliError, EXIT } from '../exit-codes.js';
import { formatRunReport } from '../format/report.js';
import type { TableStyle } from '../format/table.js';
import type { KubeLive, LiveOptions, LocalDrainLauncher } from '../live.js';
import { Progress, PROGRESS_FLAG_VALUES, progressMode } from '../progress.js';

export const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
export const err = (text: string) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** kubectl's words for a node that does not exist, and exit 1: what was asked of it cannot be done. */
export function nodeNotFound(name: string): number {
  err(`Error from server (NotFound): nodes "${name}" not found`);
  return EXIT.findings;
}

/** Drain progress on stderr, as `--progress` asks (auto: one updating line on a terminal). */
export function progressOf(v: Record<string, unknown>): Progress {
  const flag = str(v['progress']) ?? 'auto';
  const mode = PROGRESS_FLAG_VALUES.find((m) => m === flag);
  if (mode === undefined) throw new CliError(`--progress: expected ${PROGRESS_FLAG_VALUES.join(', ')}, got ${flag}`);
  return new Progress(process.stderr, progressMode(mode, process.stderr));
}

/** The connection flags (commands.ts CONNECTION) as `connect`'s options. */
export const liveOptions = (v: Record<string, unknown>): LiveOptions => ({
  ...(str(v['kubeconfig']) ? { kubeconfig: str(v['kubeconfig']) } : {}),
  ...(str(v['context']) ? { context: str(v['context']) } : {}),
  ...(str(v['cluster']) ? { cluster: str(v['cluster']) } : {}),
  ...(str(v['region']) ? { region: str(v['region']) } : {}),
  ...(str(v['endpoint-url']) ? { endpointUrl: str(v['endpoint-url']) } : {}),
  ...(str(v['drain-state-machine']) ? { drainStateMachineArn: str(v['drain-state-machine']) } : {}),
  ...(str(v['output-event-bus']) ? { outputEventBus: str(v['output-event-bus']) } : {}),
});

/** `-o`: a table whose long cells are cut to fit (the default), the same table with every cell whole, or the report as JSON. */
export const OUTPUT_MODES = ['table', 'wide', 'json'] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];
const isOutputMode = (mode: string): mode is OutputMode => (OUTPUT_MODES as readonly string[]).includes(mode);

export function outputMode(v: Record<string, unknown>): OutputMode {
  const mode = str(v['output']) ?? 'table';
  if (!isOutputMode(mode)) throw new CliError(`-o/--output: expected ${OUTPUT_MODES.join(', ')}, got ${mode}`);
  return mode;
}

/** How a table-printing mode prints its tables. */
export const tableStyle = (mode: Exclude<OutputMode, 'json'>): TableStyle => ({ wide: mode === 'wide' });

/** Exit 1 when a drain run in this process ended other than drained. */
export const drainsExit = (drains: LocalDrainLauncher): number => (drains.allDrained() ? EXIT.ok : EXIT.findings);
export const worst = (...codes: number[]): number => Math.max(...codes);

export function printReport(report: ReportSummary, mode: OutputMode): number {
  out(mode === 'json' ? JSON.stringify(report, null, 2) : formatRunReport(report, tableStyle(mode)));
  return report.errors.length > 0 || report.actions.some((a) => a.outcome === 'failed') ? EXIT.findings : EXIT.ok;
}

/**
 * Works on the API server's time when it is not this machine's (a skewed clock, or a served sandbox
 * whose clock runs on from its scenario's end), saying so on stderr.
 */
export async function followClock(live: KubeLive): Promise<void> {
  const offset = await live.followServerClock();
  if (offset === undefined) return;
  const ahead = offset > 0 ? 'ahead of' : 'behind';
  err(
    `the API server's clock is ${humanDuration(Math.abs(offset))} ${ahead} this machine's; working on the server's time (${new Date(live.clock.now()).toISOString()})`,
  );
}
