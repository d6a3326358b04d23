import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '../../model/clock.js';
import { Counters } from './counters.js';
import { verifyEksToken, type EksTokenVerification } from './eks-token.js';
import { Faults, type FaultOptions } from './faults.js';
import { RequestLog } from './request-log.js';
import { createAwsServer } from './server.js';
import { DEFAULT_CREDENTIALS, type EmulatorCredential } from './sigv4.js';
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
}

/** What an SDK v3 client needs to talk to the emulator: `new EC2Client(aws.clientConfig())`. */
export interface EmulatorClientConfig {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
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
  readonly credentials: readonly EmulatorCredential[];
  /** Client settings signed with the first configured credential pair. */
  clientConfig(): EmulatorClientConfig;
  /** Verifies an EKS bearer token for a cluster against this emulator's clock and credentials. */
  verifyEksToken(token: string, clusterName: string): Promise<EksTokenVerification>;
  close(): Promise<void>;
}

/** Starts the AWS endpoint emulator (EC2, Auto Scaling, EKS, STS, EventBridge, Step Functions). */
export async function startAwsEmulator(options: AwsEmulatorOptions = {}): Promise<AwsEmulator> {
  const clock = options.clock ?? systemClock;
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '111122223333';
  if (!/^\d{12}$/.test(accountId)) throw new Error(`accountId must be 12 digits: ${accountId}`);
  if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region)) throw new Error(`region is not an AWS region name: ${region}`);
  const credentials = options.credentials ?? [DEFAULT_CREDENTIALS];
  const first = credentials[0];
  if (!first) throw new Error('credentials: give at least one pair');
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
    const empty = new AwsState({ clock, region: signingRegion, accountId, timings: options.timings, idSeed: `${options.idSeed ?? 'aws-emulator'}:${signingRegion}` });
    otherRegions.set(signingRegion, empty);
    return empty;
  };
  const server = createAwsServer({ stateFor, faults, requestLog, counters, credentials });
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
    clientConfig: () => ({
      endpoint,
      region,
      credentials: { accessKeyId: first.accessKeyId, secretAccessKey: first.secretAccessKey, sessionToken: first.sessionToken },
    }),
    verifyEksToken: (token, clusterName) => verifyEksToken(token, clusterName, { clock, accountId, credentials, extraHosts: ownHosts }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // SDK clients keep sockets alive; without this close() would wait for them to time out.
        server.closeAllConnections();
      }),
  };
}
