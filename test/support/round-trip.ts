// The what-if round trip (issue #29 item 5), end to end through the real binary as an operator runs
// it: a generated world W and history H (scripts/make-replay-history.ts); W served (`simulate W
// --serve`, a process of its own); `snapshot -o S` of the served world with the kubeconfig and AWS
// credentials it prints; then H replayed on W and on S (`simulate … --replay H -o json`, both at once)
// and the actions the two runs took compared per node and per kind. The snapshot loses nothing the
// reconciler reads when the two are the same. With `anonymize`, an anonymized snapshot and the history
// renamed alike (`snapshot --anonymize --history H --history-out H'`) make a third run, whose nodes
// have other names: it is held to the same actions node by node, without the names (actionShapes).
//
// test/cli/round-trip.test.ts runs it small; test/bench/roundtrip.bench.ts at a month of 1,000 nodes.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { actionTotals } from '../../cli/format/replay.js';
import { diffActions, type ActionCounts, type NodeDiff } from '../../cli/report/policy-diff.js';
import { replayHistory, replayWorldText, type ReplayHistoryOptions } from '../../scripts/make-replay-history.js';
import { serveScenario } from './served.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/ec2-node-reconciler.mjs');

export type RoundTripOptions = ReplayHistoryOptions & {
  readonly days: number;
  /**
   * Also `snapshot --anonymize --history H --history-out H'` of the served world, and H' replayed on
   * that snapshot (a third replay, at once with the others). @default false
   */
  readonly anonymize?: boolean;
};

/** One replay of H, as `simulate --replay -o json` gives it. */
export interface ReplayRun {
  readonly file: string;
  readonly fed: number;
  readonly routed: number;
  readonly sweeps: number;
  /** node (or instance id) → action → times taken: what `--compare` diffs. */
  readonly actions: ActionCounts;
  readonly seconds: number;
}

export interface RoundTrip {
  readonly history: readonly Record<string, unknown>[];
  /** What `snapshot` said it wrote (`… 60 instances, 60 nodes, 60 pods, 0 PDBs as of …`). */
  readonly snapshotLine: string;
  readonly original: ReplayRun;
  readonly fromSnapshot: ReplayRun;
  /** The nodes whose actions differ between the two runs: none when the round trip holds. */
  readonly diff: readonly NodeDiff[];
  /** With `anonymize`: the renamed history replayed on the anonymized snapshot (its nodes have other names). */
  readonly fromAnonymized?: ReplayRun;
  readonly seconds: { readonly serve: number; readonly snapshot: number; readonly replays: number };
}

const SimulationJson = z.object({
  replay: z.object({ fed: z.number(), routed: z.number(), sweeps: z.number() }),
  actions: z.record(z.string(), z.record(z.string(), z.number())),
});

type Run = { code: number; stdout: string; stderr: string };

function cli(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env, maxBuffer: 1024 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') {
          reject(new Error(`running ${args.join(' ')}`, { cause: error }));
          return;
        }
        resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
      },
    );
  });
}

const seconds = (since: number): number => Number(((performance.now() - since) / 1000).toFixed(1));

async function replay(file: string, history: string): Promise<ReplayRun> {
  const started = performance.now();
  const result = await cli(['simulate', file, '--replay', history, '-o', 'json']);
  if (result.code !== 0) throw new Error(`simulate ${file} --replay exited ${result.code}:\n${result.stderr}`);
  const json = SimulationJson.parse(JSON.parse(result.stdout));
  return {
    file,
    ...json.replay,
    actions: new Map(Object.entries(json.actions).map(([node, counts]) => [node, new Map(Object.entries(counts))])),
    seconds: seconds(started),
  };
}

/** The round trip at the given size; its files are removed when it ends. */
export async function roundTrip(options: RoundTripOptions): Promise<RoundTrip> {
  const dir = await mkdtemp(join(tmpdir(), 'round-trip-'));
  try {
    const world = join(dir, 'world.json');
    const historyFile = join(dir, 'history.jsonl');
    const snapshot = join(dir, 'snapshot.json');
    const anonymized = join(dir, 'anonymized.json');
    const anonymizedHistory = join(dir, 'anonymized-history.jsonl');
    const history = replayHistory(options);
    await writeFile(world, replayWorldText(options));
    await writeFile(historyFile, history.map((event) => `${JSON.stringify(event)}\n`).join(''));

    let started = performance.now();
    const served = await serveScenario(world, { timeoutMs: 600_000 });
    const serve = seconds(started);
    let snapshotLine: string;
    started = performance.now();
    try {
      const connection = ['--kubeconfig', served.kubeconfig, '--cluster', served.cluster];
      const take = async (...args: string[]): Promise<string> => {
        const taken = await cli(['snapshot', ...args, ...connection, '--endpoint-url', served.endpoint], served.env);
        if (taken.code !== 0) throw new Error(`snapshot exited ${taken.code}:\n${taken.stderr}`);
        return taken.stderr;
      };
      snapshotLine = (await take('-o', snapshot)).trim().split('\n').at(-1) ?? '';
      if (options.anonymize === true)
        await take('-o', anonymized, '--anonymize', '--history', historyFile, '--history-out', anonymizedHistory);
    } finally {
      await served.stop();
    }
    const snapshotSeconds = seconds(started);

    started = performance.now();
    const [original, fromSnapshot, fromAnonymized] = await Promise.all([
      replay(world, historyFile),
      replay(snapshot, historyFile),
      options.anonymize === true ? replay(anonymized, anonymizedHistory) : undefined,
    ]);
    return {
      history,
      snapshotLine,
      original,
      fromSnapshot,
      ...(fromAnonymized ? { fromAnonymized } : {}),
      diff: diffActions(original.actions, fromSnapshot.actions),
      seconds: { serve, snapshot: snapshotSeconds, replays: seconds(started) },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A run's actions by kind over every node, `cordon 8, delete 2, …`. */
export const actionKinds = (run: ReplayRun): string =>
  [...actionTotals(run.actions)].map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none';

/** Each node's actions without its name, in a stable order: what a run on an anonymized snapshot shares with the original. */
export const actionShapes = (run: ReplayRun): string[] =>
  [...run.actions.values()]
    .map((perNode) => JSON.stringify([...perNode].sort(([a], [b]) => a.localeCompare(b))))
    .sort();
