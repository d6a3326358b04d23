// `simulate --replay` and `simulate --compare` through the binary, as docs/what-if.md runs them:
// the fixture world (two spot nodes) and a history of six events (two rebalance recommendations, a
// spot warning, and three events the stack never acts on: another account's, another region's, a
// state no rule matches).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayHistoryText, replayWorldText } from '../../scripts/make-replay-history.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/ec2-node-reconciler.mjs');
const FIXTURES = join(ROOT, 'test/fixtures/replay');
const WORLD = join(FIXTURES, 'world.yaml');
const HISTORY = join(FIXTURES, 'history.jsonl');
const A = join(FIXTURES, 'a.json');
const B = join(FIXTURES, 'b.yaml');
const NODE_1 = 'ip-10-60-9-1.eu-west-1.compute.internal';
const NODE_2 = 'ip-10-60-9-2.eu-west-1.compute.internal';

type Run = { code: number; stdout: string; stderr: string };
const cli = (...args: string[]): Promise<Run> =>
  new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });

describe('simulate --replay', () => {
  it('should feed each event at its time with sweeps on the deployed schedule, and count what it ignored by reason', async () => {
    const { code, stdout, stderr } = await cli('simulate', WORLD, '--replay', HISTORY);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    // The world starts a minute before the first event (12:00:05).
    expect(stdout).toContain('starts 2026-11-29T11:59:05.000Z, replaying a history');
    expect(stdout).toMatch(
      /clock +2026-11-29T11:59:05\.000Z → .*; 4 sweep\(s\), one every 10 min \(the deployed schedule\)/,
    );
    expect(stdout).toContain('events    6 fed, 3 matched a rule (3 queued), 3 ignored');
    expect(stdout).toMatch(/ 1 {2}another account's: AWS sends it to that account's bus, never the stack's/);
    expect(stdout).toMatch(/ 1 {2}another region's: AWS sends it to that region's bus, never the stack's/);
    expect(stdout).toMatch(/ 1 {2}no rule of the stack matches it: EventBridge drops it/);
    expect(stdout).toContain(
      'handled   3 acted on, 0 with nothing to do for this cluster, 0 receive(s) failed and retried',
    );
    expect(stdout).toContain('actions   cordon 2, delete 1, drain 1, uncordon 1');
    // The timeline keeps what did something: the spot warning's drain, the sweep's delete.
    expect(stdout).toMatch(new RegExp(`event: EC2 Spot Instance Interruption Warning +drain → started +${NODE_1}`));
    expect(stdout).toMatch(new RegExp(`sweep +delete → done +${NODE_1}`));
    expect(stdout).not.toMatch(/^\+\S+ +(sweep|event: .+?) +nothing to do/m);
  }, 180_000);

  it('should feed an archive replay’s event (replay-name) as the original event, and say so', async () => {
    // The first event of this history (node 1's rebalance recommendation) carries replay-name: as
    // written, the product would refuse it and the sandbox change nothing (one cordon, not two).
    const { code, stdout } = await cli('simulate', WORLD, '--replay', join(FIXTURES, 'history-filter-log-events.json'));
    expect(code).toBe(0);
    expect(stdout).toContain('1 carried replay-name (an archive replay): fed as their original events, without it');
    expect(stdout).toContain('actions   cordon 2, delete 1, drain 1, uncordon 1');
    expect(stdout).toMatch(new RegExp(`event: EC2 Instance Rebalance Recommendation +cordon → done +${NODE_1}`));
  }, 180_000);

  it('should find a machine of the account the world lacks as EC2 has it (untagged), not retry an event about it', async () => {
    // A snapshot holds the cluster's machines; the history also names the account's others. AWS sent
    // an event about this one, so EC2 has it: the events function finds it, not this cluster's.
    const path = join(mkdtempSync(join(tmpdir(), 'replay-')), 'history.jsonl');
    const event = {
      version: '0',
      id: '7e1f4c3a-2b1e-4d6f-8a7b-3c2d1e0f9b19',
      'detail-type': 'EC2 Instance State-change Notification',
      source: 'aws.ec2',
      account: '111122223333',
      time: '2026-11-29T12:13:00Z',
      region: 'eu-west-1',
      resources: ['arn:aws:ec2:eu-west-1:111122223333:instance/i-0dd0000000000d101'],
      detail: { 'instance-id': 'i-0dd0000000000d101', state: 'stopped' },
    };
    writeFileSync(path, `${JSON.stringify(event)}\n`);
    const { code, stdout } = await cli('simulate', WORLD, '--replay', path);
    expect(code).toBe(0);
    expect(stdout).toContain('events    1 fed, 1 matched a rule (1 queued), 0 ignored');
    expect(stdout).toContain(
      'handled   0 acted on, 1 with nothing to do for this cluster, 0 receive(s) failed and retried',
    );
    expect(stdout).toContain('actions   none');
  }, 180_000);

  it('should refuse a history with a line that is no event, naming the line, before running anything', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'replay-')), 'history.jsonl');
    writeFileSync(path, '{"version":"0"}\n');
    expect(await cli('simulate', WORLD, '--replay', path)).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining(`error: --replay ${path}:1: not an EventBridge event`) as unknown,
    });
  });
});

describe('simulate --compare', () => {
  it('should print an empty diff for the same settings twice: both runs start from the same clock', async () => {
    const { code, stdout } = await cli('simulate', WORLD, '--replay', HISTORY, '--compare', A, A);
    expect(code).toBe(0);
    expect(stdout).toContain('POLICY DIFF  none: both settings take the same actions on every node');
  }, 180_000);

  it('should give an empty diff for the same settings over a generated day of 60 nodes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-'));
    writeFileSync(join(dir, 'world.json'), replayWorldText({ nodes: 60 }));
    writeFileSync(join(dir, 'history.jsonl'), replayHistoryText({ nodes: 60, days: 1, seed: 7 }));
    const { code, stdout } = await cli(
      'simulate',
      join(dir, 'world.json'),
      '--replay',
      join(dir, 'history.jsonl'),
      '--settings',
      A,
      '--settings',
      A,
      '-o',
      'json',
    );
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as {
      diff: unknown[];
      baseline: { actions: Record<string, number> };
      replay: { fed: number };
    };
    expect(result.diff).toEqual([]);
    expect(result.replay.fed).toBeGreaterThan(15);
    // Not vacuous: the day makes the reconciler act.
    expect(Object.values(result.baseline.actions).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  }, 300_000);

  it('should exit 1 when the candidate adds a destructive action, naming the node, unless --allow-destructive', async () => {
    const refused = await cli('simulate', WORLD, '--replay', HISTORY, '--compare', A, B);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(new RegExp(`${NODE_2} +drain +0 +1 +added \\(DESTRUCTIVE\\)`));
    expect(refused.stderr).toContain(`the candidate (${B}) adds destructive actions`);
    const accepted = await cli(
      'simulate',
      WORLD,
      '--replay',
      HISTORY,
      '--settings',
      A,
      '--settings',
      B,
      '--allow-destructive',
      '-o',
      'json',
    );
    expect(accepted.code).toBe(0);
    const result = JSON.parse(accepted.stdout) as { diff: unknown; addsDestructive: boolean };
    expect(result.addsDestructive).toBe(true);
    expect(result.diff).toEqual([{ node: NODE_2, changes: [{ action: 'drain', delta: 1, destructive: true }] }]);
  }, 300_000);

  it('should compare the scenario’s own steps without --replay (a scenario without a start: both runs get the same one)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-'));
    const world = readFileSync(WORLD, 'utf8');
    const now = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const rebalance = {
      version: '0',
      id: '5d1f4c3a-2b1e-4d6f-8a7b-3c2d1e0f9b02',
      'detail-type': 'EC2 Instance Rebalance Recommendation',
      source: 'aws.ec2',
      account: '111122223333',
      time: now,
      region: 'eu-west-1',
      resources: ['arn:aws:ec2:eu-west-1:111122223333:instance/i-0bb0000000000a102'],
      detail: { 'instance-id': 'i-0bb0000000000a102' },
    };
    const scenario = join(dir, 'steps.yaml');
    writeFileSync(
      scenario,
      `${world}steps:\n  - event: { inline: ${JSON.stringify(rebalance)} }\n  - advance: 5m\n  - sweep: {}\n`,
    );
    const same = await cli('simulate', scenario, '--compare', B, B, '-o', 'json');
    expect(same.code).toBe(0);
    expect((JSON.parse(same.stdout) as { diff: unknown }).diff).toEqual([]);
    const changed = await cli('simulate', scenario, '--compare', A, B, '--allow-destructive', '-o', 'json');
    expect(changed.code).toBe(0);
    expect((JSON.parse(changed.stdout) as { diff: unknown }).diff).toEqual([
      { node: NODE_2, changes: [{ action: 'drain', delta: 1, destructive: true }] },
    ]);
  }, 300_000);

  it('should refuse what does not make a comparison', async () => {
    const usage = [
      [['simulate', WORLD, '--compare', A], /--compare takes two settings files/],
      [['simulate', WORLD, A], /unexpected argument/],
      [['simulate', WORLD, '--allow-destructive'], /--allow-destructive goes with --compare/],
      [['simulate', WORLD, '--compare', A, B, '--serve'], /--serve does not go with it/],
      [['simulate', WORLD, '--settings', join(FIXTURES, 'world.yaml')], /world\.yaml: .*unknown setting/],
    ] as const;
    for (const [args, message] of usage) {
      const result = await cli(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });
});
