// The binary as someone who mistypes it meets it: a version, help per command, and "did you mean"
// for a mistyped command or flag, each with the README's exit codes (0 done, 2 bad input).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { closest } from '../../lib/support/suggest.js';

const BIN = new URL('../../bin/ec2-node-reconciler.mjs', import.meta.url).pathname;
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Runs the binary (the node that runs the tests: Node 24), whatever it exits with. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return cliWith({}, ...args);
}

async function cliWith(
  env: Record<string, string | undefined>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe.concurrent('the command line, mistyped', () => {
  it('should print its version with --version, -v and version', async () => {
    for (const flag of ['--version', '-v', 'version']) {
      const result = await cli(flag);
      expect(result).toEqual({
        code: 0,
        stdout: `ec2-node-reconciler ${VERSION} (node ${process.version})\n`,
        stderr: '',
      });
    }
  });

  it('should print a command’s own help with `help COMMAND`, as `COMMAND --help` does', async () => {
    const [viaHelp, viaFlag] = await Promise.all([cli('help', 'drain'), cli('drain', '--help')]);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toMatch(/^Usage: ec2-node-reconciler drain /);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(await cli('help', 'nope')).toEqual(
      expect.objectContaining({
        code: 2,
        stderr: expect.stringMatching(/^error: unknown command "nope"\n/) as unknown,
      }),
    );
  });

  it('should suggest the command meant, and exit 2', async () => {
    const result = await cli('swep');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: unknown command "swep" \(did you mean sweep\?\)\n/);
  });

  it('should suggest the flag meant, and say how to pass a value that starts with a dash, and exit 2', async () => {
    const [typo, dash] = await Promise.all([cli('sweep', '--dry-runn'), cli('sweep', '--max-deletions', '-1')]);
    expect(typo).toEqual(
      expect.objectContaining({
        code: 2,
        stderr: 'error: unknown flag --dry-runn (did you mean --dry-run?) (see: ec2-node-reconciler sweep --help)\n',
      }),
    );
    expect(dash).toEqual(
      expect.objectContaining({
        code: 2,
        stderr:
          'error: --max-deletions needs a value, and the next argument looks like a flag: write --max-deletions=VALUE (see: ec2-node-reconciler sweep --help)\n',
      }),
    );
  });
});

describe.concurrent('the command line, without what it needs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
  const kubeconfig = join(dir, 'config');
  const arn = 'arn:aws:eks:eu-west-1:111122223333:cluster/demo';
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [ { name: "${arn}", cluster: { server: "https://127.0.0.1:1" } } ]
users: [ { name: demo, user: { token: t } } ]
contexts: [ { name: demo, context: { cluster: "${arn}", user: demo } }, { name: other, context: { cluster: "${arn}", user: demo } } ]
current-context: demo
`,
  );
  const noRegion = { AWS_REGION: undefined, AWS_DEFAULT_REGION: undefined };

  it('should say which kubeconfig is missing, and exit 3', async () => {
    expect(await cliWith(noRegion, 'sweep', '--dry-run', '--kubeconfig', join(dir, 'nope'))).toEqual(
      expect.objectContaining({ code: 3, stderr: `error: kubeconfig ${join(dir, 'nope')}: no such file\n` }),
    );
    const none = await cliWith({ ...noRegion, KUBECONFIG: undefined, HOME: dir }, 'sweep', '--dry-run');
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(
      /^error: no kubeconfig: \$KUBECONFIG is not set and .*\.kube\/config does not exist; pass --kubeconfig PATH/,
    );
  });

  it('should name the contexts there are when --context names none of them, and exit 3', async () => {
    expect(await cliWith(noRegion, 'sweep', '--dry-run', '--kubeconfig', kubeconfig, '--context', 'nosuch')).toEqual(
      expect.objectContaining({
        code: 3,
        stderr: 'error: no context "nosuch" in the kubeconfig (it has: demo, other)\n',
      }),
    );
  });

  it('should refuse a region other than the EKS context’s, from --region or the environment, naming both, and exit 2', async () => {
    expect(await cliWith(noRegion, 'sweep', '--dry-run', '--kubeconfig', kubeconfig, '--region', 'us-east-1')).toEqual(
      expect.objectContaining({
        code: 2,
        stderr:
          "error: --region us-east-1, but the kubeconfig context's cluster is in eu-west-1: pass the region of the cluster, or another --context\n",
      }),
    );
    expect(
      await cliWith({ ...noRegion, AWS_REGION: 'us-east-1' }, 'sweep', '--dry-run', '--kubeconfig', kubeconfig),
    ).toEqual(
      expect.objectContaining({
        code: 2,
        stderr:
          "error: AWS_REGION is us-east-1, but the kubeconfig context's cluster is in eu-west-1: unset it, or pass --region eu-west-1\n",
      }),
    );
  });
});

// One after another: a subprocess each, on a machine of two shared cores.
describe('drain, uncordon and decommission, refused before anything is contacted', () => {
  // A cluster nothing listens at: a command that got as far as connecting would exit 3, not 2.
  const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
  const kubeconfig = join(dir, 'config');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [ { name: demo, cluster: { server: "https://127.0.0.1:1" } } ]
users: [ { name: demo, user: { token: t } } ]
contexts: [ { name: demo, context: { cluster: demo, user: demo } } ]
current-context: demo
`,
  );
  const refused = async (args: string[], message: RegExp) => {
    const result = await cliWith({ AWS_REGION: 'us-east-1' }, ...args, '--kubeconfig', kubeconfig);
    expect(result.code, args.join(' ')).toBe(2);
    expect(result.stderr, args.join(' ')).toMatch(message);
  };
  /** Each case in turn. */
  const allRefused = async (cases: readonly (readonly [string[], RegExp])[]) => {
    for (const [args, message] of cases) await refused(args, message);
  };
  const SLOW = 180_000;

  it('should list uncordon among the commands, with help of its own', async () => {
    const [main, own] = await Promise.all([cli('--help'), cli('uncordon', '--help')]);
    expect(main.stdout).toMatch(/^ {2}uncordon {6}make a cordoned node schedulable again/m);
    expect(own.code).toBe(0);
    expect(own.stdout).toMatch(/^Usage: ec2-node-reconciler uncordon NODE /);
    expect(own.stdout).toContain("Reverses the reconciler's own cordon");
  });

  it(
    'should refuse the kubectl drain flags whose meaning this drain does not have, naming why, and exit 2',
    async () => {
      await allRefused([
        [
          ['drain', 'n1', '--ignore-daemonsets=false'],
          /^error: --ignore-daemonsets=false: this drain always leaves DaemonSet pods in place .* and never stops for them; drop the flag\n$/,
        ],
        [
          ['drain', 'n1', '--disable-eviction'],
          /^error: --disable-eviction: not supported: this drain only evicts \(policy\/v1 Eviction\), so PodDisruptionBudgets always hold/,
        ],
        [
          ['drain', 'n1', '--dry-run=server'],
          /^error: --dry-run=server: --dry-run takes no value, or one of --dry-run=true, --dry-run=false, --dry-run=client, --dry-run=none\n$/,
        ],
        [
          ['drain', 'n1', '--force', '--evict-unreplicated', 'false'],
          /^error: --force and --evict-unreplicated false say different things: pass one of them\n$/,
        ],
      ]);
    },
    SLOW,
  );

  it(
    'should name the drain flag whose value is wrong, and exit 2',
    async () => {
      await allRefused([
        [['drain', 'n1', '--grace-period', 'soon'], /^error: --grace-period: expected whole seconds/],
        [['drain', 'n1', '--grace-period=-5'], /^error: --grace-period: expected 0 or more seconds, or -1/],
        [
          ['drain', 'n1', '--pod-selector', 'app in web'],
          /^error: --pod-selector: not a label selector: "app in web" is not a requirement/,
        ],
        [['drain', 'n1', '--timeout', '5s'], /^error: --timeout: must be at least 1m/],
        [['drain', 'n1', '--progress', 'fancy'], /^error: --progress: expected auto, tty, plain, got fancy\n$/],
      ]);
    },
    SLOW,
  );

  it(
    'should refuse arguments a command does not take, and options that contradict each other, and exit 2',
    async () => {
      await allRefused([
        [['drain', 'n1', 'n2'], /^error: unexpected argument "n2": usage: drain NODE /],
        [['uncordon'], /^error: uncordon: which node\? \(uncordon NODE\)\n$/],
        [['sweep', 'now'], /^error: unexpected argument "now": sweep takes no arguments/],
        [['decommission', 'i-zz', '--undo'], /^error: decommission: not an EC2 instance id: "i-zz"\n$/],
        [['decommission', 'n1', '--undo', '--now'], /^error: --undo and --now: pass one of them\n$/],
        [
          ['decommission', 'n1', '--undo', '--reason', 'x'],
          /^error: --reason is the tag’s value; --undo takes none\n$/,
        ],
      ]);
    },
    SLOW,
  );
});

describe('closest', () => {
  it('should find words within two edits, or those the typed word begins, nearest first, and nothing far away', () => {
    expect(closest('swep', ['sweep', 'simulate', 'event'])).toEqual(['sweep']);
    expect(closest('decom', ['decommission', 'drain'])).toEqual(['decommission']);
    expect(closest('heartbeat-grce', ['heartbeat-grace', 'not-found-grace', 'registration-grace'])).toEqual([
      'heartbeat-grace',
    ]);
    expect(closest('xyz', ['sweep', 'drain'])).toEqual([]);
    expect(closest('ab', ['cd'])).toEqual([]);
  });
});
