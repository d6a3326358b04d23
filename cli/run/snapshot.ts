// `snapshot -o FILE`: the live cluster and account as a scenario file the sandbox runs (docs/snapshot.md).
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { callerIdentity, createDeploymentClients } from '../aws/deployment-reads.js';
import { DEFAULT_SETTINGS } from '@ec2-node-reconciler/model/contract/settings.js';
import { KubeClient } from '../../lib/kube/client.js';
import { anonymizeEvent } from '../snapshot/history.js';
import { anonymizer, keepNames, type SnapshotNames } from '../snapshot/names.js';
import { takeSnapshot, type SnapshotSink } from '../snapshot/take.js';
import type { CommandRun } from '../command-run.js';
import { CliError, EXIT } from '../exit-codes.js';
import { connect } from '../live.js';
import { err, followClock, liveOptions, str } from './shared.js';

/** Where the scenario goes: a file written whole or not at all (a partial file is removed), or stdout for `-`. */
function openSink(path: string): { sink: SnapshotSink; done(): void; abandon(): void } {
  if (path === '-')
    return { sink: { write: (text) => void writeSync(1, text) }, done: () => undefined, abandon: () => undefined };
  const partial = `${path}.partial`;
  // Only its owner reads it: even anonymized, a snapshot describes a production cluster.
  const fd = openSync(partial, 'w', 0o600);
  return {
    sink: { write: (text) => void writeSync(fd, text) },
    done: () => {
      closeSync(fd);
      renameSync(partial, path);
    },
    abandon: () => {
      closeSync(fd);
      rmSync(partial, { force: true });
    },
  };
}

export const runSnapshotCommand: CommandRun = async (v) => {
  const path = str(v['output']);
  if (path === undefined || path === '')
    throw new CliError('snapshot: where to? (snapshot -o FILE, or -o - for stdout)');
  const history = historyFlags(v);
  const options = liveOptions(v);
  const live = connect(options);
  await followClock(live);
  const deps = live.deps({ ...DEFAULT_SETTINGS, dryRun: true });
  const { account } = await callerIdentity(
    createDeploymentClients({ region: live.region, ...(options.endpointUrl ? { endpoint: options.endpointUrl } : {}) }),
  );
  if (!/^\d{12}$/.test(account))
    throw new CliError(`the AWS credentials name no account (got ${JSON.stringify(account)})`, EXIT.error);
  // Read first: a history that cannot be replayed fails the command before anything is written.
  const events = history ? await historyEvents(history.from) : undefined;
  const names = v['anonymize'] === true ? anonymizer() : keepNames;
  const output = openSink(path);
  let summary;
  try {
    summary = await takeSnapshot(
      {
        observe: deps,
        autoScaling: deps.autoScaling,
        kube: new KubeClient(live.kube),
        clock: live.clock,
        cluster: { name: live.cluster, region: live.region, accountId: account },
      },
      names,
      output.sink,
    );
  } catch (error) {
    output.abandon();
    throw error;
  }
  output.done();
  // After the world: the same names, so the events name the snapshot's machines, groups and account.
  if (history && events) writeAnonymizedHistory(events, history.out, names, live.cluster);
  for (const warning of summary.warnings) err(`warning: ${warning}`);
  err(
    `${path === '-' ? 'wrote' : `wrote ${path}:`} ${summary.instances} instances, ${summary.nodes} nodes, ${summary.pods} pods, ${summary.pdbs} PDBs as of ${new Date(summary.start).toISOString()}${names.anonymized ? ' (anonymized)' : ''}`,
  );
  if (history && events) err(`wrote ${history.out}: the ${events.length} events of ${history.from}, renamed alike`);
  return EXIT.ok;
};

/** `--history EVENTS --history-out FILE`: both or neither, and only with `--anonymize` (a plain snapshot's history is the history). */
function historyFlags(v: Record<string, unknown>): { from: string; out: string } | undefined {
  const from = str(v['history']);
  const out = str(v['history-out']);
  if (from === undefined && out === undefined) return undefined;
  if (from === undefined || out === undefined) throw new CliError('--history EVENTS goes with --history-out FILE');
  if (v['anonymize'] !== true)
    throw new CliError(
      '--history renames a history as --anonymize renames the world: without it, replay EVENTS as they are',
    );
  return { from, out };
}

/** The history's events, read as `simulate --replay` reads them (any of its shapes, replay-name taken off). */
async function historyEvents(from: string): Promise<readonly Readonly<Record<string, unknown>>[]> {
  const { readHistory, HistoryError } = await import('@ec2-node-reconciler/sandbox/simulate/replay-events.js');
  try {
    return (await readHistory(from)).events.map(({ event }) => event);
  } catch (error) {
    if (error instanceof HistoryError) throw new CliError(`--history ${error.message}`, EXIT.usage);
    throw error;
  }
}

/** The events renamed with the snapshot's names, one a line, written whole or not at all. */
function writeAnonymizedHistory(
  events: readonly Readonly<Record<string, unknown>>[],
  path: string,
  names: SnapshotNames,
  cluster: string,
): void {
  const output = openSink(path);
  try {
    for (const event of events) output.sink.write(`${JSON.stringify(anonymizeEvent(event, names, cluster))}\n`);
  } catch (error) {
    output.abandon();
    throw error;
  }
  output.done();
}
