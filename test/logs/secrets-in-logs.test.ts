// The secrets check fires: the detector on each kind of secret (and not on look-alikes), the capture
// on each channel it listens to, and a whole vitest run that fails naming the file and the kind,
// without printing the secret.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { roleSessionCredential } from '@ec2-node-reconciler/sandbox/aws/emulator.js';
import { publishFunctionLogs } from '@ec2-node-reconciler/sandbox/taps.js';
import { PROJECT_ROOT } from '../../infra/functions.js';
import { findSecrets, SecretScanner, type SecretKind } from '../support/secrets.js';
import { secretsCheck } from '../support/secrets-in-logs.setup.js';

// Made up here, in the shapes of the real thing.
const EKS_TOKEN = `k8s-aws-v1.${Buffer.from('https://sts.us-east-1.amazonaws.com/?Action=GetCallerIdentity&X-Amz-Signature=0f').toString('base64url')}`;
const KEY_ID = 'AKIA2345ABCDEFGHIJKL';
const SECRET = 'abcdEFGHijklMNOPqrstUVWXyz0123456789/+ab';
const kinds = (text: string): SecretKind[] => findSecrets(text).map((f) => f.kind);

describe('the secrets detector', () => {
  it('should find each kind of secret by its shape', () => {
    expect(kinds(`token ${EKS_TOKEN}`)).toEqual(['EKS bearer token']);
    expect(kinds('Authorization: Bearer sandbox-admin')).toEqual(['bearer token']);
    expect(kinds('{"authorization":"bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln"}')).toEqual(['bearer token']);
    expect(kinds(`AWS_ACCESS_KEY_ID=${KEY_ID}`)).toEqual(['AWS access key id']);
    expect(kinds(`key ASIA${'Q'.repeat(16)} expired`)).toEqual(['AWS access key id']);
    expect(kinds(`aws_secret_access_key = ${SECRET}`)).toEqual(['AWS secret access key']);
    expect(kinds(`{"SecretAccessKey":"${SECRET}"}`)).toEqual(['AWS secret access key']);
    expect(kinds(`"secretAccessKey"   :   "${SECRET}"`)).toEqual(['AWS secret access key']);
    expect(kinds(`aws_secret_access_key=${encodeURIComponent(SECRET)}`)).toEqual(['AWS secret access key']);
    expect(kinds('token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJlLXBhcnQ')).toEqual([
      'bearer token',
    ]);
    expect(kinds(`X-Amz-Security-Token=FwoGZXIvYXdzEXAMPLETOKEN%2Fvalue`)).toEqual(['AWS session token']);
    expect(kinds(`"token":"IQoJb3JpZ2luX2VjEXAMPLEEXAMPLEEXAMPLE=="`)).toEqual(['AWS session token']);
  });

  it('should find the values the sandbox issued exactly, whatever their context', () => {
    const issued = roleSessionCredential('arn:aws:iam::111122223333:role/r', 'session');
    const found = (text: string) => findSecrets(text, [issued]).map((f) => f.kind);
    expect(found(`secret is ${issued.secretAccessKey}.`)).toEqual(['sandbox-issued secret access key']);
    expect(found(`?k=${encodeURIComponent(issued.secretAccessKey)}`)).toContain('sandbox-issued secret access key');
    expect(found(`-${issued.accessKeyId}-`)).toContain('sandbox-issued access key id');
    expect(found(`${issued.sessionToken ?? ''}`)).toContain('sandbox-issued session token');
    expect(findSecrets('id AKIDEXAMPLE', [{ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x'.repeat(40) }])).toEqual([
      { kind: 'sandbox-issued access key id', end: 14 },
    ]);
  });

  it('should not take look-alikes for secrets', () => {
    expect(kinds('kubectl sends bearer tokens only over https; bearer authentication is off')).toEqual([]);
    expect(kinds(`sha1 ${'0123456789abcdef'.repeat(2)}01234567 and base64 ${SECRET}`)).toEqual([]);
    expect(kinds('instance i-0123456789abcdef0, AKIA-prefix, ASIA/Pacific, Authorization: Bearer <redacted>')).toEqual(
      [],
    );
    expect(kinds('the k8s-aws-v1. prefix')).toEqual([]);
  });

  it('should find a secret split across two writes, once', () => {
    const seen: SecretKind[] = [];
    const scanner = new SecretScanner(
      () => [],
      (kind) => seen.push(kind),
    );
    scanner.write(`line one ${EKS_TOKEN.slice(0, 20)}`);
    scanner.write(`${EKS_TOKEN.slice(20)} and more`);
    scanner.write(' and more again');
    expect(seen).toEqual(['EKS bearer token']);
  });
});

describe('the capture', () => {
  afterEach(() => secretsCheck.forget());

  it('should see what console, stdout and stderr get', () => {
    console.info(`logged ${KEY_ID}`);
    process.stderr.write(`Authorization: Bearer sandbox-admin\n`);
    expect([...secretsCheck.findings().keys()]).toEqual(['AWS access key id (console)', 'bearer token (stderr)']);
  });

  it("should see the sandbox functions' log lines and know the credentials the sandbox issues", () => {
    const issued = roleSessionCredential('arn:aws:iam::111122223333:role/events', 'events-fn');
    publishFunctionLogs({ functionName: 'events-fn', lines: [`{"message":"x","key":"${issued.secretAccessKey}"}`] });
    expect([...secretsCheck.findings().keys()]).toEqual(['sandbox-issued secret access key (function events-fn)']);
  });

  it("should see a subprocess's output", async () => {
    await promisify(execFile)('sh', ['-c', `echo ${EKS_TOKEN} >&2`]);
    expect([...secretsCheck.findings().keys()]).toEqual(['EKS bearer token (sh stderr)']);
  });

  it('should not read the answer of `aws eks get-token` as a log, and still read its stderr', async () => {
    // An `aws` that prints a token on both streams, called as get-token is.
    const dir = await mkdtemp(join(tmpdir(), 'secrets-aws-'));
    const aws = join(dir, 'aws');
    await writeFile(aws, `#!/bin/sh\necho ${EKS_TOKEN}\necho ${EKS_TOKEN} >&2\n`, { mode: 0o700 });
    try {
      await promisify(execFile)(aws, ['--region', 'eu-west-1', 'eks', 'get-token', '--cluster-name', 'demo']);
      expect([...secretsCheck.findings().keys()]).toEqual(['EKS bearer token (aws stderr)']);
      secretsCheck.forget();
      // Anything else that names get-token among its arguments is read as any output.
      await promisify(execFile)('sh', ['-c', `echo ${EKS_TOKEN}`, 'eks', 'get-token']);
      expect([...secretsCheck.findings().keys()]).toEqual(['EKS bearer token (sh stdout)']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the check', () => {
  it('should fail a test file whose test logged a token, naming the file and the kind and not the token', async () => {
    const run = await promisify(execFile)(
      process.execPath,
      [
        join(PROJECT_ROOT, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--config',
        'test/fixtures/secrets/vitest.config.ts',
        '--silent',
      ],
      { cwd: PROJECT_ROOT, env: { ...process.env, CI: '1', NO_COLOR: '1' } },
    ).then(
      () => ({ code: 0, output: '' }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code ?? -1,
        output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
      }),
    );

    expect(run.code).toBe(1);
    expect(run.output).toMatch(
      /secrets reached the log in \S*test\/fixtures\/secrets\/logs-a-token\.fixture\.ts: EKS bearer token \(console\) ×1/,
    );
    // The child printed no secret: had it, this file's own capture of its output would have found it.
    expect([...secretsCheck.findings().keys()]).toEqual([]);
  }, 180_000);
});
