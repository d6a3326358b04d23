// EKS bearer tokens: verifyEksToken (the Kubernetes emulator's authenticator hook) and STS
// answering a presigned GetCallerIdentity URL over HTTP, as aws-iam-authenticator calls it.
// Tokens made by `aws eks get-token` are checked in cli.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { presignGet } from '../../src/aws/sigv4.js';
import {
  createEksToken,
  DEFAULT_CREDENTIALS,
  EKS_TOKEN_PREFIX,
  verifyEksToken,
  type EmulatorCredential,
} from '../../src/aws/index.js';
import { startWorld, START, type World } from './support/world.js';

const ROLE_ARN = 'arn:aws:sts::111122223333:assumed-role/ec2-node-reconciler/lambda-1';
const decode = (token: string): URL =>
  new URL(Buffer.from(token.slice(EKS_TOKEN_PREFIX.length), 'base64url').toString('utf8'));
const encode = (url: URL | string): string => EKS_TOKEN_PREFIX + Buffer.from(String(url), 'utf8').toString('base64url');

/** A presigned URL that signs only `host`, as a careless client would. */
async function presignWithoutClusterHeader(clock: VirtualClock): Promise<string> {
  const url = new URL('https://sts.us-east-1.amazonaws.com/');
  const query = await presignGet({
    url,
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
    headers: { host: url.host },
    credential: DEFAULT_CREDENTIALS,
    region: 'us-east-1',
    signedAt: clock.now(),
    expiresIn: 60,
  });
  return encode(`${url.href}?${query.toString()}`);
}

describe('verifyEksToken', () => {
  const clock = new VirtualClock(START);
  const options = { clock, accountId: '111122223333' };
  const token = (overrides: Partial<Parameters<typeof createEksToken>[0]> = {}): Promise<string> =>
    createEksToken({ clusterName: 'demo', region: 'us-east-1', clock, ...overrides });

  it('should accept a valid token for its cluster and name the caller', async () => {
    const verdict = await verifyEksToken(await token(), 'demo', options);

    expect(verdict).toEqual({
      ok: true,
      arn: 'arn:aws:iam::111122223333:user/sandbox-admin',
      accountId: '111122223333',
      userId: expect.stringMatching(/^AIDA/) as unknown,
      accessKeyId: 'AKIDEXAMPLE',
      sessionName: undefined,
    });
  });

  it('should accept temporary credentials with their session token and report the assumed role', async () => {
    const credentials: EmulatorCredential = {
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'temp-secret',
      sessionToken: 'FwoGZXIvYXdzE+/session=',
      arn: ROLE_ARN,
    };

    const verdict = await verifyEksToken(await token({ credentials }), 'demo', {
      ...options,
      credentials: [credentials],
    });
    const withoutSession = await verifyEksToken(
      await token({ credentials: { ...credentials, sessionToken: undefined } }),
      'demo',
      { ...options, credentials: [credentials] },
    );

    expect(verdict).toMatchObject({
      ok: true,
      arn: ROLE_ARN,
      sessionName: 'lambda-1',
      userId: expect.stringMatching(/^AROA[0-9A-F]+:lambda-1$/) as unknown,
    });
    expect(withoutSession).toMatchObject({
      ok: false,
      reason: 'The security token included in the request is invalid.',
    });
  });

  it('should stay valid for 15 minutes whatever X-Amz-Expires says, and not a second more', async () => {
    const t = await token();
    const later = new VirtualClock(START + 15 * 60_000);
    const tooLate = new VirtualClock(START + 15 * 60_000 + 1_000);

    expect((await verifyEksToken(t, 'demo', { ...options, clock: later })).ok).toBe(true);
    expect(await verifyEksToken(t, 'demo', { ...options, clock: tooLate })).toEqual({
      ok: false,
      reason: expect.stringContaining('X-Amz-Date parameter is expired (15 minute expiration)') as unknown,
    });
  });

  it.each<[string, () => Promise<string>, string]>([
    ['a token for another cluster', () => token({ clusterName: 'other' }), 'signature we calculated does not match'],
    [
      'a token signed with another secret',
      () => token({ credentials: { ...DEFAULT_CREDENTIALS, secretAccessKey: 'wrong' } }),
      'signature we calculated does not match',
    ],
    [
      'an unknown access key',
      () => token({ credentials: { accessKeyId: 'AKIDUNKNOWN', secretAccessKey: 'x' } }),
      'security token included in the request is invalid',
    ],
    [
      'a token from the future',
      () => token({ clock: new VirtualClock(START + 10 * 60_000) }),
      'Signature not yet current',
    ],
    [
      'a token without the prefix',
      async () => (await token()).slice(EKS_TOKEN_PREFIX.length),
      'missing expected "k8s-aws-v1." prefix',
    ],
    ['a token that is not base64url', () => Promise.resolve(`${EKS_TOKEN_PREFIX}a+b/c==`), 'not base64url'],
    [
      'plain http to STS',
      async () => encode(decode(await token()).href.replace('https:', 'http:')),
      'unexpected scheme "http"',
    ],
    [
      'a foreign host',
      async () => encode(decode(await token()).href.replace('sts.us-east-1.amazonaws.com', 'sts.evil.example')),
      'unexpected hostname "sts.evil.example"',
    ],
    [
      'an extra query parameter',
      async () => encode(`${decode(await token()).href}&Foo=1`),
      'non-allowlisted query parameter "Foo"',
    ],
    [
      'another action',
      async () => encode(decode(await token()).href.replace('GetCallerIdentity', 'AssumeRole')),
      'unexpected action parameter',
    ],
    [
      'X-Amz-Expires over 900',
      async () => encode(decode(await token()).href.replace('X-Amz-Expires=60', 'X-Amz-Expires=901')),
      'invalid X-Amz-Expires',
    ],
    ['x-k8s-aws-id left unsigned', () => presignWithoutClusterHeader(clock), 'did not sign the x-k8s-aws-id header'],
    [
      'a tampered signature',
      async () => encode(decode(await token()).href.replace(/X-Amz-Signature=[0-9a-f]/, 'X-Amz-Signature=g')),
      'signature we calculated does not match',
    ],
  ])('should reject %s', async (_what, make, reason) => {
    const verdict = await verifyEksToken(await make(), 'demo', options);

    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? '' : verdict.reason).toContain(reason);
  });
});

describe('STS GetCallerIdentity from a presigned URL over HTTP', () => {
  let world: World;
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(async () => {
    await world.close();
  });

  const presigned = async (): Promise<URL> =>
    decode(
      await createEksToken({
        clusterName: 'demo',
        region: 'us-east-1',
        clock: world.clock,
        url: `${world.aws.endpoint}/`,
      }),
    );

  it('should verify the signature and answer in JSON when asked, as aws-iam-authenticator reads it', async () => {
    const url = await presigned();

    const response = await fetch(url, { headers: { 'x-k8s-aws-id': 'demo', accept: 'application/json' } });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      GetCallerIdentityResponse: {
        GetCallerIdentityResult: {
          Arn: 'arn:aws:iam::111122223333:user/sandbox-admin',
          Account: '111122223333',
          UserId: expect.stringMatching(/^AIDA/) as unknown,
        },
        ResponseMetadata: { RequestId: expect.any(String) as unknown },
      },
    });
  });

  it('should refuse a request whose signed header was changed, in the awsquery error shape', async () => {
    const url = await presigned();

    const json = await fetch(url, { headers: { 'x-k8s-aws-id': 'other', accept: 'application/json' } });
    const xml = await fetch(url, { headers: { 'x-k8s-aws-id': 'other' } });

    expect(json.status).toBe(403);
    expect(await json.json()).toMatchObject({ Error: { Code: 'SignatureDoesNotMatch', Type: 'Sender' } });
    expect(await xml.text()).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<ErrorResponse xmlns="https:\/\/sts.amazonaws.com\/doc\/2011-06-15\/"><Error><Type>Sender<\/Type><Code>SignatureDoesNotMatch<\/Code>/,
    );
  });

  it('should accept a token presigned against the emulator itself through the emulator handle', async () => {
    const token = await createEksToken({
      clusterName: 'demo',
      region: 'us-east-1',
      clock: world.clock,
      url: `${world.aws.endpoint}/`,
    });

    expect(await world.aws.verifyEksToken(token, 'demo')).toMatchObject({ ok: true, accessKeyId: 'AKIDEXAMPLE' });
    expect(await world.aws.verifyEksToken(token, 'prod')).toMatchObject({ ok: false });
  });

  it("should check a token's time against the signer's clock when told it (a client outside the emulator's virtual time)", async () => {
    // Signed two days after the emulator's clock, as `aws eks get-token` signs on the wall clock.
    const outside = new VirtualClock(START + 2 * 86_400_000);
    const token = await createEksToken({ clusterName: 'demo', region: 'us-east-1', clock: outside });

    expect(await world.aws.verifyEksToken(token, 'demo')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('Signature not yet current') as unknown,
    });
    expect(await world.aws.verifyEksToken(token, 'demo', { clock: outside })).toMatchObject({
      ok: true,
      accessKeyId: 'AKIDEXAMPLE',
    });
    outside.advance(16 * 60_000);
    expect(await world.aws.verifyEksToken(token, 'demo', { clock: outside })).toMatchObject({ ok: false });
  });
});
