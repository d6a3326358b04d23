// The operator's tool as kubectl users meet it (#18): drain's dry run, pod selector, grace period and
// kubectl's flag names, drain progress on a terminal and off one, uncordon, decommission --undo, and
// the exit codes of each. The real binary as a subprocess against a sandbox served over TLS, its
// clock driven at wall speed so that pods finish terminating as the drains wait for them.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CORDON_REASON_ANNOTATION,
  CORDONED_AT_ANNOTATION,
  CORDONED_BY_ANNOTATION,
  CORDONED_BY_OPERATOR_VALUE,
  CORDONED_BY_VALUE,
  DECOMMISSION_TAG,
  DRAIN_ANNOTATION,
  DRAIN_FOR_ANNOTATION,
  EXCLUDE_FROM_LB_LABEL,
} from '@ec2-node-reconciler/model/contract/labels.js';
import { DRAIN_TAINT_KEY, EXCLUDED_FROM_LB_ANNOTATION } from '../../lib/kube/node-writes.js';
import { driveInRealTime } from '@ec2-node-reconciler/sandbox/kube/index.js';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { ADMIN_TOKEN, startSandbox, type Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';

const run = promisify(execFile);
const BIN = new URL('../../bin/ec2-node-reconciler.mjs', import.meta.url).pathname;
const id = (n: number | string) => `i-0ddddddddddddddd${n}`;
const RECONCILER_CORDONED_AT = '2026-11-30T08:00:00.000Z';

let sandbox: Sandbox;
let stopClock: () => void;
let dir: string;
let kubeconfig: string;

type Result = { code: number; stdout: string; stderr: string };

/** The binary with the sandbox's kubeconfig and (`aws`) its cluster and AWS endpoint. */
async function cli(args: readonly string[], options: { aws?: boolean; input?: string } = {}): Promise<Result> {
  const { credentials } = sandbox.aws.clientConfig();
  const env = {
    ...process.env,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_REGION: 'us-east-1',
  };
  const connection = [
    '--kubeconfig',
    kubeconfig,
    ...(options.aws === true ? ['--cluster', 'demo', '--endpoint-url', sandbox.aws.endpoint] : []),
  ];
  try {
    const child = run(process.execPath, [BIN, ...args, ...connection], { env, timeout: 90_000 });
    if (options.input !== undefined) child.child.stdin?.end(options.input);
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const node = (name: string) => sandbox.kube.store.getNode(name);
const podsOn = (name: string) =>
  sandbox.kube.store
    .listPods({ node: name })
    .map((p) => p.metadata.name)
    .sort();
/** Writes the binary sent to the API server since `from` (an index into the request log). */
const writesSince = (from: number) =>
  sandbox.kube.requestLog.entries.slice(from).filter((e) => e.method !== 'GET' && e.method !== 'HEAD');
/** The drain's progress lines on stderr (the clock notice aside). */
const progressLines = (stderr: string) => stderr.split('\n').filter((line) => /evicted \d+, terminating/.test(line));

beforeAll(async () => {
  sandbox = await startSandbox(
    parseScenario(
      `
name: operator
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
${[1, 2, 3, 4, 5, 6, 7, 8, 'a'].map((n) => `  - { id: ${id(n)}, state: running, zone: us-east-1a, tags: { eks:cluster-name: demo } }`).join('\n')}
nodes:
  - { name: dry, providerID: "aws:///us-east-1a/${id(1)}", createdAgo: 2h }
  - { name: sel, providerID: "aws:///us-east-1a/${id(2)}", createdAgo: 2h }
  - { name: plain, providerID: "aws:///us-east-1a/${id(3)}", createdAgo: 2h }
  - { name: tty, providerID: "aws:///us-east-1a/${id(4)}", createdAgo: 2h }
  - { name: pty, providerID: "aws:///us-east-1a/${id('a')}", createdAgo: 2h }
  - name: rec
    providerID: "aws:///us-east-1a/${id(5)}"
    createdAgo: 2h
    unschedulable: true
    labels: { ${EXCLUDE_FROM_LB_LABEL}: "true" }
    annotations:
      ${CORDONED_BY_ANNOTATION}: ${CORDONED_BY_VALUE}
      ${CORDON_REASON_ANNOTATION}: "Spot interruption warning"
      ${CORDONED_AT_ANNOTATION}: "${RECONCILER_CORDONED_AT}"
      ${EXCLUDED_FROM_LB_ANNOTATION}: "true"
      ${DRAIN_ANNOTATION}: exec-1
      ${DRAIN_FOR_ANNOTATION}: removal
    taints:
      - { key: ${DRAIN_TAINT_KEY}, value: spot, effect: NoSchedule }
      - { key: dedicated, value: gpu, effect: NoSchedule }
  - { name: op, providerID: "aws:///us-east-1a/${id(6)}", createdAgo: 2h, unschedulable: true }
  - { name: dec, providerID: "aws:///us-east-1a/${id(7)}", createdAgo: 2h }
  - { name: slow, providerID: "aws:///us-east-1a/${id(8)}", createdAgo: 2h }
pods:
  - { name: web, node: dry, owner: ReplicaSet/web-1a2b, labels: { app: web }, terminationGracePeriodSeconds: 0 }
  - { name: cache, node: dry, owner: StatefulSet/cache, emptyDir: true, terminationGracePeriodSeconds: 0 }
  - { name: debug, node: dry, terminationGracePeriodSeconds: 0 }
  - { name: agent-dry, namespace: kube-system, node: dry, owner: DaemonSet/agent, terminationGracePeriodSeconds: 0 }
  - { name: web-a, node: sel, owner: ReplicaSet/web-1a2b, labels: { app: web }, terminationGracePeriodSeconds: 300 }
  - { name: batch-a, node: sel, owner: ReplicaSet/batch-1a2b, labels: { app: batch }, terminationGracePeriodSeconds: 0 }
  - { name: agent-sel, namespace: kube-system, node: sel, owner: DaemonSet/agent, labels: { app: web } }
  - { name: worker-p, node: plain, owner: ReplicaSet/worker-1a2b, terminationGracePeriodSeconds: 5 }
  - { name: worker-t, node: tty, owner: ReplicaSet/worker-1a2b, terminationGracePeriodSeconds: 5 }
  - { name: worker-y, node: pty, owner: ReplicaSet/worker-1a2b, terminationGracePeriodSeconds: 5 }
  - { name: slow-0, node: slow, owner: StatefulSet/slow, terminationGracePeriodSeconds: 600 }
steps: []
`,
      'operator.yaml',
    ),
    { tls: true },
  );
  stopClock = driveInRealTime(sandbox.clock);
  dir = mkdtempSync(join(tmpdir(), 'cli-operator-'));
  kubeconfig = await sandbox.kube.writeKubeconfig(join(dir, 'kubeconfig'), { token: ADMIN_TOKEN });
});

afterAll(async () => {
  stopClock();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('drain --dry-run', () => {
  it('should print each pod’s verdict and why, cordon nothing, evict nothing, and exit 0 when the drain would drain', async () => {
    const from = sandbox.kube.requestLog.entries.length;

    const { code, stdout, stderr } = await cli(['drain', 'dry', '--dry-run']);

    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('node/dry would be cordoned (dry run: nothing is changed)');
    expect(lines[1]?.split(/\s{2,}/)).toEqual(['POD', 'WOULD', 'WHY']);
    expect(lines.slice(3).map((l) => l.split(/\s{2,}/))).toEqual([
      ['default/cache', 'evict', 'uses emptyDir, its data is lost'],
      ['default/debug', 'evict', 'declares no controller, nothing recreates it'],
      ['default/web', 'evict'],
      ['kube-system/agent-dry', 'skip', 'managed by DaemonSet kube-system/agent'],
      ['node/dry would be drained (dry run): 3 evictions, 1 skipped'],
    ]);
    expect(writesSince(from)).toEqual([]);
    expect(node('dry')?.spec?.unschedulable).not.toBe(true);
    expect(podsOn('dry')).toEqual(['agent-dry', 'cache', 'debug', 'web']);
  });

  it('should take kubectl’s --dry-run=client, --force=false and --delete-emptydir-data=false, and exit 1 naming the pods a drain would refuse and the flag that evicts them', async () => {
    const { code, stdout, stderr } = await cli([
      'drain',
      'dry',
      '--dry-run=client',
      '--force=false',
      '--delete-emptydir-data=false',
      '--ignore-daemonsets',
    ]);

    expect(code, stderr).toBe(1);
    expect(stdout).toMatch(
      /^default\/cache\s+refuse\s+uses emptyDir \(local data would be lost\); pass --delete-emptydir-data to evict it$/m,
    );
    expect(stdout).toMatch(
      /^default\/debug\s+refuse\s+declares no controller \(nothing would recreate it\); pass --force to evict it$/m,
    );
    expect(stdout).toMatch(/^node\/dry would not be drained \(dry run\): 2 pods refused; 1 eviction, 1 skipped$/m);
    expect(podsOn('dry')).toEqual(['agent-dry', 'cache', 'debug', 'web']);
  });

  it('should say that the drain would take over a cordon the reconciler made, and leave an operator’s cordon as it is', async () => {
    const from = sandbox.kube.requestLog.entries.length;

    const rec = await cli(['drain', 'rec', '--dry-run']);
    const op = await cli(['drain', 'op', '--dry-run']);

    expect(rec.stdout.split('\n')[0]).toBe(
      'node/rec is cordoned already, by the reconciler (Spot interruption warning): the drain would make that cordon yours, and no sweep would undo it (dry run: nothing is changed)',
    );
    expect(op.stdout.split('\n')[0]).toBe('node/op is cordoned already (dry run: nothing is changed)');
    expect(writesSince(from)).toEqual([]);
  });

  it('should judge only the pods the selector selects', async () => {
    const { code, stdout } = await cli(['drain', 'dry', '--dry-run', '--pod-selector', 'app in (web, api)']);

    expect(code).toBe(0);
    expect(stdout).toContain('pods selected by app in (web, api):');
    expect(stdout).toMatch(/^default\/web\s+evict$/m);
    expect(stdout).not.toContain('default/cache');
    expect(stdout).toMatch(/^node\/dry would be drained \(dry run\): 1 eviction, 0 skipped$/m);
  });
});

describe('drain', () => {
  it('should evict only the selected pods, each with the grace period asked for, taking kubectl’s flag names', async () => {
    const from = sandbox.kube.requestLog.entries.length;

    const { code, stdout, stderr } = await cli([
      'drain',
      'sel',
      '--pod-selector',
      'app=web',
      '--grace-period',
      '3',
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--force',
    ]);

    expect(code, stderr).toBe(0);
    expect(stdout).toBe('sel: drained\n');
    // The DaemonSet's pod matches the selector and stays; the unselected pod stays; the node is cordoned all the same.
    expect(podsOn('sel')).toEqual(['agent-sel', 'batch-a']);
    expect(node('sel')?.spec?.unschedulable).toBe(true);
    const evictions = writesSince(from).filter((e) => e.subresource === 'eviction');
    expect(evictions.map((e) => [e.name, e.body])).toEqual([
      [
        'web-a',
        expect.objectContaining({
          deleteOptions: { preconditions: expect.any(Object) as unknown, gracePeriodSeconds: 3 },
        }),
      ],
    ]);
    const lists = sandbox.kube.requestLog.entries.slice(from).filter((e) => e.verb === 'list' && e.resource === 'pods');
    expect(lists.every((e) => new URLSearchParams(e.query).get('labelSelector') === 'app=web')).toBe(true);
  });

  it('should exit 1 as kubectl does for a node that does not exist, with or without --dry-run', async () => {
    for (const args of [
      ['drain', 'nosuch'],
      ['drain', 'nosuch', '--dry-run'],
    ]) {
      const { code, stdout, stderr } = await cli(args);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^Error from server \(NotFound\): nodes "nosuch" not found$/m);
    }
    expect(node('nosuch')).toBeUndefined();
  });

  it('should print a progress line only when it changes, when stderr is not a terminal', async () => {
    const { code, stdout, stderr } = await cli(['drain', 'plain']);

    expect(code, stderr).toBe(0);
    expect(stdout).toBe('plain: drained\n');
    // Polled every 2 s through a 5 s grace period: the same line is not printed again.
    expect(progressLines(stderr)).toEqual([
      'plain: evicted 1, terminating 1, left 0',
      'plain: evicted 1, terminating 0, left 0',
    ]);
    expect(stderr).not.toContain('\r');
  });

  it('should keep one progress line updated in place on a terminal (--progress tty), and clear it at the end', async () => {
    const { code, stdout, stderr } = await cli(['drain', 'tty', '--progress', 'tty']);

    expect(code, stderr).toBe(0);
    expect(stdout).toBe('tty: drained\n');
    const progress = stderr.slice(stderr.indexOf('\r'));
    expect(progress).toBe(
      '\rtty: evicted 1, terminating 1, left 0\x1b[K\rtty: evicted 1, terminating 0, left 0\x1b[K\r\x1b[K',
    );
  });
});

/** util-linux `script`, which runs a command on a pseudo-terminal of its own. */
const SCRIPT = ['/usr/bin/script', '/bin/script'].find((path) => existsSync(path));

describe('drain on a real terminal', () => {
  it.skipIf(SCRIPT === undefined)(
    'should find the terminal by itself (--progress auto) and update one line in place',
    async () => {
      const { credentials } = sandbox.aws.clientConfig();
      // script(1) gives the binary a terminal for stdin, stdout and stderr, and copies what it shows here.
      const command = [process.execPath, BIN, 'drain', 'pty', '--kubeconfig', kubeconfig].join(' ');
      const child = run(SCRIPT ?? 'script', ['-qec', command, '/dev/null'], {
        env: { ...process.env, TERM: 'xterm', AWS_ACCESS_KEY_ID: credentials.accessKeyId },
        timeout: 90_000,
      });
      // script(1) runs until its own input ends.
      child.child.stdin?.end();
      const { stdout } = await child;
      // The terminal turns each \n into \r\n.
      expect(stdout).toContain(
        '\rpty: evicted 1, terminating 1, left 0\x1b[K\rpty: evicted 1, terminating 0, left 0\x1b[K',
      );
      expect(stdout).toContain('\r\x1b[Kpty: drained\r\n');
      expect(podsOn('pty')).toEqual([]);
    },
  );
});

describe('uncordon', () => {
  it('should reverse the reconciler’s cordon with its marks, taint and label, keep the drain record, and say so', async () => {
    const before = node('rec');
    const from = sandbox.kube.requestLog.entries.length;

    const { code, stdout, stderr } = await cli(['uncordon', 'rec']);

    expect(code, stderr).toBe(0);
    expect(stdout.split('\n')).toEqual([
      `node/rec uncordoned: it was the reconciler's cordon, since ${RECONCILER_CORDONED_AT} — Spot interruption warning`,
      `  removed the taint ${DRAIN_TAINT_KEY}, the label ${EXCLUDE_FROM_LB_LABEL} the reconciler had added`,
      '  the drain exec-1 the node records stops at its next check, cancelled by this uncordon (an Auto Scaling lifecycle action it worked for is left to you)',
      '',
    ]);
    const after = node('rec');
    expect(after?.spec?.unschedulable).not.toBe(true);
    expect(after?.spec?.taints).toEqual([{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]);
    expect(after?.metadata.labels?.[EXCLUDE_FROM_LB_LABEL]).toBeUndefined();
    const ours = Object.keys(after?.metadata.annotations ?? {}).filter((k) => k.startsWith('ec2-node-reconciler/'));
    expect(ours.sort()).toEqual([DRAIN_ANNOTATION, DRAIN_FOR_ANNOTATION]);
    // One guarded patch: the uid and resourceVersion the decision was made on.
    const patches = writesSince(from);
    expect(patches.map((e) => [e.method, e.name])).toEqual([['PATCH', 'rec']]);
    expect(patches[0]?.body).toMatchObject({
      metadata: { uid: before?.metadata.uid, resourceVersion: before?.metadata.resourceVersion },
    });
  });

  it('should reverse an operator’s cordon, by kubectl or through this CLI, and say whose it was', async () => {
    const kubectlCordon = await cli(['uncordon', 'op']);
    expect(kubectlCordon.code, kubectlCordon.stderr).toBe(0);
    expect(kubectlCordon.stdout).toBe(
      "node/op uncordoned: it was an operator's cordon (kubectl cordon or another tool: it carries no mark of the reconciler's)\n",
    );
    expect(node('op')?.spec?.unschedulable).not.toBe(true);

    // `sel` was drained by the CLI above: an operator's cordon made through it.
    expect(node('sel')?.metadata.annotations?.[CORDONED_BY_ANNOTATION]).toBe(CORDONED_BY_OPERATOR_VALUE);
    const cliCordon = await cli(['uncordon', 'sel']);
    expect(cliCordon.code, cliCordon.stderr).toBe(0);
    expect(cliCordon.stdout).toMatch(
      /^node\/sel uncordoned: it was an operator's cordon, made with ec2-node-reconciler drain or decommission --now, since \S+ — manual drain\n$/,
    );
    expect(node('sel')?.spec?.unschedulable).not.toBe(true);
  });

  it('should say a schedulable node already is, change nothing, and exit 0', async () => {
    const from = sandbox.kube.requestLog.entries.length;
    const { code, stdout } = await cli(['uncordon', 'op']);
    expect(code).toBe(0);
    expect(stdout).toBe('node/op already uncordoned\n');
    expect(writesSince(from)).toEqual([]);
  });

  it('should exit 1 as kubectl does for a node that does not exist', async () => {
    const { code, stderr } = await cli(['uncordon', 'nosuch']);
    expect(code).toBe(1);
    expect(stderr).toBe('Error from server (NotFound): nodes "nosuch" not found\n');
  });
});

describe('decommission --undo', () => {
  const tags = () => sandbox.aws.state.instanceView(id(7))?.tags ?? {};
  // The tag is an event to the deployed reconciler, which would cordon `dec` as soon as the served
  // clock moves on: on a slow machine, before `--undo` runs. Time stands still between the two
  // commands here, as when an operator undoes a tag within the same second.
  beforeAll(() => stopClock());
  afterAll(() => {
    stopClock = driveInRealTime(sandbox.clock);
  });

  it('should remove the decommission tag, by instance or by node, and say there is nothing to undo after', async () => {
    const tagged = await cli(['decommission', 'dec', '--reason', 'disk failing'], { aws: true });
    expect(tagged.code, tagged.stderr).toBe(0);
    expect(tagged.stdout).toBe(`tagged ${id(7)} with ${DECOMMISSION_TAG}=disk failing\n`);
    expect(tags()[DECOMMISSION_TAG]).toBe('disk failing');

    const undone = await cli(['decommission', id(7), '--undo'], { aws: true });
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stdout).toBe(
      `removed ${DECOMMISSION_TAG}=disk failing from ${id(7)}: no event or sweep drains it for that any more\n`,
    );
    expect(tags()[DECOMMISSION_TAG]).toBeUndefined();
    expect(tags()['eks:cluster-name']).toBe('demo');

    const again = await cli(['decommission', 'dec', '--undo'], { aws: true });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`${id(7)} has no ${DECOMMISSION_TAG} tag: nothing to undo\n`);
  });

  it('should point at uncordon when the node is still cordoned', async () => {
    await cli(['decommission', id(7), '--reason', 'retiring'], { aws: true });
    sandbox.kube.store.patch(
      sandbox.kube.store.resource('nodes'),
      undefined,
      'dec',
      'application/strategic-merge-patch+json',
      { spec: { unschedulable: true } },
    );

    const { code, stdout } = await cli(['decommission', id(7), '--undo'], { aws: true });

    expect(code).toBe(0);
    expect(stdout).toContain(
      "its node dec is still cordoned (an operator's cordon (kubectl cordon or another tool: it carries no mark of the reconciler's)); `ec2-node-reconciler uncordon dec` makes it schedulable",
    );
  });

  it('should exit 1 for an instance or node that does not exist, and 2 for --undo with --now', async () => {
    const [instance, missingNode, both] = await Promise.all([
      cli(['decommission', id(9), '--undo'], { aws: true }),
      cli(['decommission', 'nosuch', '--undo'], { aws: true }),
      cli(['decommission', id(7), '--undo', '--now'], { aws: true }),
    ]);
    expect(instance).toMatchObject({ code: 1 });
    expect(instance.stderr).toMatch(/^error: no instance i-0ddddddddddddddd9 in us-east-1 \(EC2 does not know it\)$/m);
    expect(missingNode).toMatchObject({ code: 1 });
    expect(missingNode.stderr).toMatch(/^Error from server \(NotFound\): nodes "nosuch" not found$/m);
    expect(both).toMatchObject({ code: 2, stderr: 'error: --undo and --now: pass one of them\n' });
  });
});

describe('event whose drain ends at its deadline', () => {
  it('should exit 1, and its table say how the drain ended, not that it started', async () => {
    // A spot warning 110 s old: its deadline (2 min after it) is 10 s away; the pod keeps its 600 s grace.
    const event = {
      version: '0',
      id: 'spot-1',
      source: 'aws.ec2',
      'detail-type': 'EC2 Spot Instance Interruption Warning',
      account: '111122223333',
      time: new Date(sandbox.clock.now() - 110_000).toISOString(),
      region: 'us-east-1',
      resources: [],
      detail: { 'instance-id': id(8), 'instance-action': 'terminate' },
    };

    const { code, stdout, stderr } = await cli(['event', '-', '--grace-period', 'pod', '--progress', 'plain'], {
      aws: true,
      input: JSON.stringify(event),
    });

    expect(code, stderr).toBe(1);
    expect(stdout).toMatch(/^drain\s+slow\s+failed: deadline — 1 pod left: default\/slow-0 \(terminating\)\s/m);
    expect(stdout).not.toMatch(/\bstarted\b/);
    expect(stderr).toMatch(/^ {2}slow: deadline$/m);
    expect(progressLines(stderr)).toEqual(['  slow: evicted 1, terminating 1, left 0']);
    expect(podsOn('slow')).toEqual(['slow-0']);
  });
});
