// `sweep` and `event`: the reconciler's own paths, run here against a real cluster and AWS account.
import { readFile } from 'node:fs/promises';
import { runSignals, runSweep } from '../../lib/pipeline/run.js';
import { parseEvent, SignalRejection } from '../../lib/signals/index.js';
import type { CommandRun } from '../command-run.js';
import { CliError, EXIT } from '../exit-codes.js';
import { connect } from '../live.js';
import { settingsFromFlags } from '../settings-flags.js';
import { drainsExit, followClock, liveOptions, out, outputMode, printReport, progressOf, worst } from './shared.js';

export const runSweepCommand: CommandRun = async (v) => {
  const mode = outputMode(v);
  const settings = settingsFromFlags(v, v['dry-run'] === true);
  const progress = progressOf(v);
  const live = connect(liveOptions(v));
  await followClock(live);
  const drains = live.localDrains(settings, progress);
  const report = await runSweep(live.deps(settings, drains), { region: live.region });
  return worst(printReport(drains.withDrainEnds(report), mode), drainsExit(drains));
};

async function readInput(file: string): Promise<string> {
  if (file !== '-') return readFile(file, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export const runEventCommand: CommandRun = async (v, [file]) => {
  if (!file) throw new CliError('event: which event? (event FILE, or - for stdin)');
  const mode = outputMode(v);
  let event: unknown;
  try {
    event = JSON.parse(await readInput(file));
  } catch (error) {
    throw new CliError(`${file}: not a JSON event (${error instanceof Error ? error.message : String(error)})`);
  }
  let parsed;
  try {
    parsed = parseEvent(event);
  } catch (error) {
    if (error instanceof SignalRejection) throw new CliError(`${file}: ${error.message}`);
    throw error;
  }
  if (parsed.outcome === 'ignored') {
    out(`ignored: ${parsed.reason}`);
    return EXIT.ok;
  }
  const settings = settingsFromFlags(v, v['dry-run'] === true);
  const progress = progressOf(v);
  const live = connect(liveOptions(v));
  // EC2 is asked in the CLI's region: another region's machine would never be found there, and the
  // event would read as one that came before its machine was visible (`trying again`) forever.
  if (parsed.header.region !== live.region)
    throw new CliError(
      `${file}: the event is from ${parsed.header.region}, but this command works in ${live.region}: pass --region ${parsed.header.region} with that region's cluster`,
      EXIT.usage,
    );
  await followClock(live);
  const drains = live.localDrains(settings, progress);
  const report = await runSignals(live.deps(settings, drains), parsed.signals, { region: live.region });
  // The drains ran to their end in this process: the report says how each ended, and one that did not drain exits 1.
  return worst(printReport(drains.withDrainEnds(report), mode), drainsExit(drains));
};
