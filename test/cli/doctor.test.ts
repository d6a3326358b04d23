// `ec2-node-reconciler doctor` as an operator runs it: the real binary, a separate process, against a
// served sandbox (`simulate FILE --serve`: the synthesized stack deployed on the emulators). A healthy
// deployment passes; then it is broken the way an operator breaks a real one — through the real
// clients and APIs: `aws eks delete-access-entry`, `kubectl apply` of a ClusterRole with a verb gone,
// `aws iam put-role-policy` with an action gone — and doctor must fail naming the fix. Each breakage
// is repaired (with doctor's own fix where it is a command) before the next, so one sandbox serves all.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { serveScenario, type Served } from '../support/served.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/ec2-node-reconciler.mjs');
const SCENARIO = join(ROOT, 'test/scenarios/in-sync-nothing-to-do.yaml');
const STACK = 'ec2-node-reconciler-demo';

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let served: Served | undefined;
let dir: string;

function sandbox(): Served {
  if (served === undefined) throw new Error('the sandbox is not served');
  return served;
}

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv = sandbox().env): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { env: { ...env, AWS_PAGER: '' }, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const doctor = (...args: string[]): Promise<Ran> => run(process.execPath, [BIN, 'doctor', ...connection(), ...args]);

const connection = (): string[] => [
  '--kubeconfig',
  sandbox().kubeconfig,
  '--cluster',
  sandbox().cluster,
  '--endpoint-url',
  sandbox().endpoint,
];

/** The AWS CLI that knows `aws <service> <command>`: v2 from the Debian package, else v1 on PATH (EKS access entries came after v2.9). */
function cliWith(service: string, command: string): string {
  for (const path of ['/usr/bin/aws', 'aws']) {
    const help = spawnSync(path, [service, command, 'help'], {
      encoding: 'utf8',
      env: { ...process.env, AWS_PAGER: '' },
    });
    if (help.status === 0) return path;
  }
  throw new Error(`no AWS CLI here knows aws ${service} ${command}`);
}

const aws = async (cli: string, ...args: string[]): Promise<string> => {
  const ran = await run(cli, ['--endpoint-url', sandbox().endpoint, '--output', 'json', ...args]);
  if (ran.code !== 0) throw new Error(`aws ${args.join(' ')} exited ${ran.code}: ${ran.stderr}`);
  return ran.stdout;
};

const kubectl = async (...args: string[]): Promise<void> => {
  const ran = await run('kubectl', ['--kubeconfig', sandbox().kubeconfig, ...args]);
  if (ran.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${ran.code}: ${ran.stderr}`);
};

const failedLines = (stdout: string): string[] => stdout.split('\n').filter((line) => line.startsWith('✗'));
/** The fix printed under the failed line that contains `marker`. */
function fixUnder(stdout: string, marker: string): string {
  const lines = stdout.split('\n');
  const at = lines.findIndex((line) => line.startsWith('✗') && line.includes(marker));
  const fix = lines[at + 1] ?? '';
  if (at < 0 || !fix.startsWith('  fix: ')) throw new Error(`no fix under a failed line with ${marker}:\n${stdout}`);
  return fix.slice('  fix: '.length);
}

const OutputsSchema = z.object({
  Stacks: z.array(z.object({ Outputs: z.array(z.object({ OutputKey: z.string(), OutputValue: z.string() })) })),
});

async function output(name: string): Promise<string> {
  const stacks = OutputsSchema.parse(
    JSON.parse(
      await aws(
        cliWith('cloudformation', 'describe-stacks'),
        'cloudformation',
        'describe-stacks',
        '--stack-name',
        STACK,
      ),
    ),
  );
  const value = stacks.Stacks[0]?.Outputs.find((o) =>
    new RegExp(`^demo${name}[0-9A-F]{8}$`).test(o.OutputKey),
  )?.OutputValue;
  if (value === undefined) throw new Error(`no output ${name}`);
  return value;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'doctor-'));
  served = await serveScenario(SCENARIO);
}, 180_000);

afterAll(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('doctor against a served sandbox', () => {
  it('should pass every check of a healthy deployment, exit 0', async () => {
    const ran = await doctor();

    expect(ran.stderr).not.toContain('error');
    expect(failedLines(ran.stdout)).toEqual([]);
    expect(ran.stdout).toContain(`cluster demo (eu-west-1), stack ${STACK}`);
    for (const check of [
      'stack',
      'authentication mode',
      'access entry',
      'rbac',
      'iam',
      'function',
      'lambda concurrency',
      'endpoint',
      'rules',
      'event source mapping',
      'queue',
      'schedule',
      'last sweep',
    ])
      expect(ran.stdout).toMatch(new RegExp(`^✓ ${check} `, 'm'));
    expect(ran.stdout).toMatch(
      /✓ rbac +events, sweep, drain-step roles +as groups ec2-node-reconciler: all 12 permissions/,
    );
    expect(ran.stdout).toMatch(/^\d+ passed$/m);
    expect(ran.code).toBe(0);
  });

  it('should give the same checks as JSON with -o json', async () => {
    const ran = await doctor('-o', 'json');

    const report = z
      .object({
        cluster: z.literal('demo'),
        region: z.literal('eu-west-1'),
        stack: z.literal(STACK),
        caller: z.string(),
        checks: z.array(
          z.object({
            check: z.string(),
            subject: z.string(),
            status: z.enum(['pass', 'fail', 'unknown']),
            detail: z.string(),
          }),
        ),
        summary: z.object({ passed: z.number(), failed: z.literal(0), unknown: z.literal(0) }),
      })
      .parse(JSON.parse(ran.stdout));
    expect(report.checks.filter((c) => c.check === 'iam').map((c) => c.subject)).toEqual([
      'events role',
      'sweep role',
      'drain-step role',
    ]);
    expect(report.summary.passed).toBe(report.checks.length);
    expect(ran.code).toBe(0);
  });

  it('should fail naming the fix when a role’s access entry is deleted, and pass once the fix is run', async () => {
    const cli = cliWith('eks', 'delete-access-entry');
    const role = await output('SweepRoleArn');
    await aws(cli, 'eks', 'delete-access-entry', '--cluster-name', 'demo', '--principal-arn', role);

    const broken = await doctor();
    const fix = fixUnder(broken.stdout, 'sweep role');
    // The fix is a command to run as printed: run it.
    const [command, ...args] = fix.split(' ');
    expect(command).toBe('aws');
    await aws(cli, ...args);
    const repaired = await doctor();

    expect(failedLines(broken.stdout)).toEqual([
      expect.stringMatching(/^✗ access entry +sweep role +.*no access entry/),
    ]);
    expect(fix).toBe(
      `aws eks create-access-entry --cluster-name demo --principal-arn ${role} --type STANDARD --kubernetes-groups ec2-node-reconciler`,
    );
    expect(broken.code).toBe(1);
    expect(failedLines(repaired.stdout)).toEqual([]);
    expect(repaired.code).toBe(0);
  });

  it('should fail naming the verb and the manifest when the ClusterRole loses a verb', async () => {
    const manifest = await run(process.execPath, [BIN, 'rbac']);
    const withoutPatch = manifest.stdout.replace('      - patch\n      - delete\n', '      - delete\n');
    expect(withoutPatch).not.toBe(manifest.stdout);
    writeFileSync(join(dir, 'rbac.yaml'), manifest.stdout);
    writeFileSync(join(dir, 'rbac-without-patch.yaml'), withoutPatch);
    await kubectl('apply', '-f', join(dir, 'rbac-without-patch.yaml'));

    const broken = await doctor();
    await kubectl('apply', '-f', join(dir, 'rbac.yaml'));
    const repaired = await doctor();

    expect(failedLines(broken.stdout)).toEqual([
      expect.stringMatching(
        /^✗ rbac +events, sweep, drain-step roles +as groups ec2-node-reconciler: denied patch nodes$/,
      ),
    ]);
    expect(fixUnder(broken.stdout, 'rbac')).toBe(
      'apply the manifest: npx ec2-node-reconciler rbac | kubectl apply -f -',
    );
    expect(broken.code).toBe(1);
    expect(failedLines(repaired.stdout)).toEqual([]);
  });

  it('should fail naming the action when a role policy loses it', async () => {
    const cli = cliWith('iam', 'put-role-policy');
    const roleName = (await output('DrainStepRoleArn')).replace(/^.*:role\/(?:.*\/)?/, '');
    const names = z
      .object({ PolicyNames: z.array(z.string()) })
      .parse(JSON.parse(await aws(cli, 'iam', 'list-role-policies', '--role-name', roleName)));
    const policyName = names.PolicyNames.find((n) => n.startsWith('demoDrainStepPolicy')) ?? '';
    const original = await aws(
      cli,
      'iam',
      'get-role-policy',
      '--role-name',
      roleName,
      '--policy-name',
      policyName,
      '--query',
      'PolicyDocument',
    );
    const document = z
      .object({ Statement: z.array(z.object({ Action: z.union([z.string(), z.array(z.string())]) }).loose()) })
      .loose()
      .parse(JSON.parse(original));
    const withoutDescribe = {
      ...document,
      Statement: document.Statement.filter((s) => ![s.Action].flat().includes('eks:DescribeCluster')),
    };
    writeFileSync(join(dir, 'policy.json'), original);
    writeFileSync(join(dir, 'policy-without-describe.json'), JSON.stringify(withoutDescribe));
    const put = (file: string) =>
      aws(
        cli,
        'iam',
        'put-role-policy',
        '--role-name',
        roleName,
        '--policy-name',
        policyName,
        '--policy-document',
        `file://${join(dir, file)}`,
      );
    await put('policy-without-describe.json');

    const broken = await doctor();
    await put('policy.json');
    const repaired = await doctor();

    expect(failedLines(broken.stdout)).toEqual([
      expect.stringMatching(
        /^✗ iam +drain-step role +arn:aws:iam::111122223333:role\/.*: denied eks:DescribeCluster on cluster demo$/,
      ),
    ]);
    expect(fixUnder(broken.stdout, 'drain-step role')).toContain('aws iam put-role-policy');
    expect(broken.code).toBe(1);
    expect(failedLines(repaired.stdout)).toEqual([]);
    expect(repaired.code).toBe(0);
  });

  it('should exit 3 saying what is missing when it cannot run', async () => {
    const noCredentials: NodeJS.ProcessEnv = {
      ...sandbox().env,
      AWS_ACCESS_KEY_ID: undefined,
      AWS_SECRET_ACCESS_KEY: undefined,
      AWS_SESSION_TOKEN: undefined,
      AWS_PROFILE: undefined,
      AWS_CONFIG_FILE: join(dir, 'no-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    };

    const [noKubeconfig, noContext, noAws] = await Promise.all([
      run(process.execPath, [BIN, 'doctor', '--kubeconfig', join(dir, 'missing.kubeconfig'), '--cluster', 'demo']),
      doctor('--context', 'nosuch'),
      run(process.execPath, [BIN, 'doctor', ...connection()], noCredentials),
    ]);

    expect(noKubeconfig.stderr).toMatch(/^error: .*missing\.kubeconfig/m);
    expect(noKubeconfig.code).toBe(3);
    expect(noContext.stderr).toMatch(/^error: .*nosuch/m);
    expect(noContext.code).toBe(3);
    expect(noAws.stderr).toMatch(/^error: cannot use the AWS credentials/m);
    expect(noAws.code).toBe(3);
  });

  it('should refuse an output format it does not have, naming the flag (exit 2)', async () => {
    const ran = await doctor('-o', 'wide');

    expect(ran.stderr).toBe('error: -o/--output: expected table or json, got wide\n');
    expect(ran.code).toBe(2);
  });
});
