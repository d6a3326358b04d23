import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '@ec2-node-reconciler/model/clock.js';
import { Counters } from './counters.js';
import { verifyEksToken, type EksTokenVerification } from './eks-token.js';
import { Faults, type FaultOptions } from './faults.js';
import type { IamAuthorizer } from './iam/authorizer.js';
import { parsePolicy } from './iam/policy.js';
import { isRegionName } from './partitions.js';
import { stableHex } from './ids.js';
import { Ec2RateLimiter } from './rate-limits.js';
import { RequestLog } from './request-log.js';
import { publishCredentialIssued } from '../taps.js';
import { createAwsServer } from './server.js';
import { DEFAULT_CREDENTIALS, identityOf, type EmulatorCredential } from './sigv4.js';
import { AwsState, type AwsSeed, type AwsTimings } from './state/index.js';

export interface AwsEmulatorOptions {
  /** Shared with the Kubernetes emulator in the sandbox. Default: the system clock. */
  readonly clock?: Clock;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** @default '111122223333' */
  readonly accountId?: string;
  /** Pairs whose signatures are verified (presigned STS URLs, EKS tokens). @default [DEFAULT_CREDENTIALS] */
  readonly credentials?: readonly EmulatorCredential[];
  readonly faults?: FaultOptions;
  readonly timings?: Partial<AwsTimings>;
  /** Seeded before the endpoint opens. */
  readonly seed?: AwsSeed;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** Entries the request log keeps (oldest dropped first). @default 100000 */
  readonly requestLogCapacity?: number;
  /** Seed of the deterministic ids (tokens, event ids). */
  readonly idSeed?: string;
  /**
   * Enforces IAM: every routed call is authorized under the identity-based policies of its caller
   * (the identity of the signing access key) before faults and handlers; a refused call gets the
   * service's AccessDenied answer and is logged with `denied: true`. IAM users among `credentials`
   * that have no policy in it get an allow-everything policy (the sandbox's operator).
   * @default - no authorization (every call is allowed)
   */
  readonly iam?: IamAuthorizer;
  /**
   * Throttles EC2 as EC2 does: a token bucket per action (its category's size and refill), account
   * and Region, on the emulator's clock; a request without a token gets RequestLimitExceeded (503).
   * With `mayRefuse`, only the callers it names are refused: the others' requests take what tokens
   * there are and are served (callers that wait in real time while the emulator's clock stands
   * still, whose retries a bucket on that clock would never refill). With `metered`, the callers it
   * does not name take no token at all.
   * @default false (every request is served)
   */
  readonly rateLimits?:
    | boolean
    | {
        readonly mayRefuse: (accessKeyId: string | undefined) => boolean;
        readonly metered?: (accessKeyId: string | undefined) => boolean;
      };
}

/** What an SDK v3 client needs to talk to the emulator: `new EC2Client(aws.clientConfig())`. */
export interface EmulatorClientConfig {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  };
}

export interface AwsEmulator {
  /** `http://127.0.0.1:<port>`: every service answers here. */
  readonly endpoint: string;
  readonly port: number;
  readonly region: string;
  readonly accountId: string;
  /** The seeded account in `region`; requests signed for any other region see an empty account. */
  readonly state: AwsState;
  readonly requestLog: RequestLog;
  readonly counters: Counters;
  readonly faults: Faults;
  /** Every pair the emulator knows: the configured ones, then those added (role sessions included). */
  readonly credentials: readonly EmulatorCredential[];
  /** The policies calls are authorized under, when IAM is enforced. */
  readonly iam?: IamAuthorizer;
  /** EC2's token buckets, when `rateLimits` is on (its `throttled` lists every request it refused). */
  readonly rateLimits?: Ec2RateLimiter;
  /** Client settings signed with the first configured credential pair. */
  clientConfig(): EmulatorClientConfig;
  /**
   * Makes a pair known (its identity for GetCallerIdentity, IAM and EKS tokens). A pair with the
   * access key id of a known one replaces it.
   */
  addCredential(credential: EmulatorCredential): void;
  /**
   * The temporary credentials of a role session, as STS AssumeRole (or Lambda and Step Functions
   * for their execution roles) hands them out: an `ASIA…` key, a secret and a session token, the
   * same for the same role and session name in every run; their identity is
   * `arn:<partition>:sts::<account>:assumed-role/<role name>/<sessionName>`. Added to `credentials`.
   */
  sessionCredentials(roleArn: string, sessionName: string): EmulatorCredential;
  /**
   * Verifies an EKS bearer token for a cluster against this emulator's credentials, and its signing
   * time against this emulator's clock (or `options.clock`: a client on another clock); gives the
   * caller's ARN.
   */
  verifyEksToken(
    token: string,
    clusterName: string,
    options?: { readonly clock?: Clock },
  ): Promise<EksTokenVerification>;
  close(): Promise<void>;
}

/** Starts the AWS endpoint emulator (EC2, Auto Scaling, EKS, STS, EventBridge, Step Functions). */
export async function startAwsEmulator(options: AwsEmulatorOptions = {}): Promise<AwsEmulator> {
  const clock = options.clock ?? systemClock;
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '111122223333';
  if (!/^\d{12}$/.test(accountId)) throw new Error(`accountId must be 12 digits: ${accountId}`);
  if (!isRegionName(region)) throw new Error(`region is not an AWS region name: ${region}`);
  // One list, read by the server and the token verifier at every use, so sessions added later count.
  const credentials: EmulatorCredential[] = [...(options.credentials ?? [DEFAULT_CREDENTIALS])];
  credentials.forEach(publishCredentialIssued);
  const first = credentials[0];
  if (!first) throw new Error('credentials: give at least one pair');
  if (options.iam) grantOperators(options.iam, credentials, accountId);
  const state = new AwsState({ clock, region, accountId, timings: options.timings, idSeed: options.idSeed });
  if (options.seed) state.seed(options.seed);
  const faults = new Faults(options.faults);
  const requestLog = new RequestLog(options.requestLogCapacity);
  const counters = new Counters();
  // A client signing for another region (a misconfigured reconciler) must see that region's
  // account, which holds nothing, exactly as on AWS; never the seeded one.
  const otherRegions = new Map<string, AwsState>();
  const stateFor = (signingRegion: string | undefined): AwsState => {
    if (signingRegion === undefined || signingRegion === region) return state;
    const existing = otherRegions.get(signingRegion);
    if (existing) return existing;
    const empty = new AwsState({
      clock,
      region: signingRegion,
      accountId,
      timings: options.timings,
      idSeed: `${options.idSeed ?? 'aws-emulator'}:${signingRegion}`,
    });
    otherRegions.set(signingRegion, empty);
    return empty;
  };
  const rateLimits = options.rateLimits ? new Ec2RateLimiter(clock) : undefined;
  const mayRefuse = typeof options.rateLimits === 'object' ? options.rateLimits.mayRefuse : () => true;
  const metered = (typeof options.rateLimits === 'object' ? options.rateLimits.metered : undefined) ?? (() => true);
  const server = createAwsServer({
    stateFor,
    faults,
    requestLog,
    counters,
    credentials,
    iam: options.iam,
    ...(rateLimits ? { ec2RateLimits: { limiter: rateLimits, accountId, mayRefuse, metered } } : {}),
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://${host}:${port}`;
  // A client may presign an EKS token against the emulator's own address instead of sts.amazonaws.com.
  const ownHosts = [`${host}:${port}`, `127.0.0.1:${port}`, `localhost:${port}`];
  return {
    endpoint,
    port,
    region,
    accountId,
    state,
    requestLog,
    counters,
    faults,
    credentials,
    iam: options.iam,
    ...(rateLimits ? { rateLimits } : {}),
    clientConfig: () => ({
      endpoint,
      region,
      credentials: {
        accessKeyId: first.accessKeyId,
        secretAccessKey: first.secretAccessKey,
        sessionToken: first.sessionToken,
      },
    }),
    addCredential: (credential) => addCredential(credentials, credential),
    sessionCredentials: (roleArn, sessionName) => {
      const credential = roleSessionCredential(roleArn, sessionName);
      addCredential(credentials, credential);
      return credential;
    },
    verifyEksToken: (token, clusterName, options) =>
      verifyEksToken(token, clusterName, {
        clock: options?.clock ?? clock,
        accountId,
        credentials,
        extraHosts: ownHosts,
      }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // SDK clients keep sockets alive; without this close() would wait for them to time out.
        server.closeAllConnections();
      }),
  };
}

function addCredential(credentials: EmulatorCredential[], credential: EmulatorCredential): void {
  publishCredentialIssued(credential);
  const index = credentials.findIndex((c) => c.accessKeyId === credential.accessKeyId);
  if (index >= 0) credentials[index] = credential;
  else credentials.push(credential);
}

/** The operator's access: everything, as an administrator's IAM user has. */
const OPERATOR_POLICY = parsePolicy('EmulatorOperatorAccess', {
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
});

/**
 * The configured pairs are the operator's (tests, the CLI, the sandbox's own set-up): each one that
 * is an IAM user without policies of its own may do everything, so enforcing IAM changes only what
 * the deployed roles may do. Attach any policy to such a user first to limit it instead.
 */
function grantOperators(iam: IamAuthorizer, credentials: readonly EmulatorCredential[], accountId: string): void {
  for (const credential of credentials) {
    const { arn } = identityOf(credential.accessKeyId, credentials, accountId);
    if (/^arn:aws[\w-]*:iam::\d{12}:user\//.test(arn) && iam.policiesOf(arn).length === 0)
      iam.attach(arn, OPERATOR_POLICY);
  }
}

const ROLE_ARN = /^arn:(aws[\w-]*):iam::(\d{12}):role\/(?:[^/]+\/)*([\w+=,.@-]{1,64})$/;
/** RoleSessionName as STS accepts it. */
const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;
/** The base32 alphabet AWS access key ids are written in. */
const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** A role session's pair, derived from the role and session name only, so every run signs alike. */
export function roleSessionCredential(roleArn: string, sessionName: string): EmulatorCredential {
  const role = ROLE_ARN.exec(roleArn);
  if (!role) throw new Error(`session credentials: ${roleArn} is not a role ARN`);
  if (!SESSION_NAME.test(sessionName))
    throw new Error(
      `session credentials: ${sessionName} is not a role session name (2 to 64 of letters, digits and +=,.@_-)`,
    );
  const [, partition = 'aws', account = '', roleName = ''] = role;
  const seed = `session:${roleArn}:${sessionName}`;
  const digits = stableHex(`${seed}:key`, 32);
  const keyId = Array.from({ length: 16 }, (_, i) =>
    KEY_ALPHABET.charAt(parseInt(digits.slice(i * 2, i * 2 + 2), 16) % 32),
  ).join('');
  const credential = {
    accessKeyId: `ASIA${keyId}`,
    secretAccessKey: Buffer.from(stableHex(`${seed}:secret`, 60), 'hex')
      .toString('base64')
      .slice(0, 40),
    // Session tokens are long opaque strings; this one only has to be stable and unique per session.
    sessionToken: `IQoJb3JpZ2luX2VjE${Buffer.from(stableHex(`${seed}:token`, 64), 'hex').toString('base64')}`,
    arn: `arn:${partition}:sts::${account}:assumed-role/${roleName}/${sessionName}`,
  };
  publishCredentialIssued(credential);
  return credential;
}
