// The AWS SDK v3 clients, each made on its first use. A client package is imported then, not at
// module init: `client-ec2` alone takes a few hundred milliseconds to load, and a function loads
// only the clients its invocations call (the drain step never calls EC2; output events and drain
// workflows are only some runs' business). The adapters import their commands the same way.
import type { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { EKSClient } from '@aws-sdk/client-eks';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

export interface AwsClientOptions {
  readonly region: string;
  /** One endpoint for every service: the sandbox's AWS emulator; unset in AWS. */
  readonly endpoint?: string;
  readonly credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Retries for throttling (adaptive mode: client-side rate limiting as EC2 throttles). */
  readonly maxAttempts?: number;
}

/** A client, made (and its package imported) when first asked for; the same one every time after. */
export type LazyClient<C> = () => Promise<C>;

export interface AwsClients {
  readonly ec2: LazyClient<EC2Client>;
  readonly autoScaling: LazyClient<AutoScalingClient>;
  readonly eks: LazyClient<EKSClient>;
  readonly eventBridge: LazyClient<EventBridgeClient>;
  readonly sfn: LazyClient<SFNClient>;
}

/** `make` run once, on the first call; a failed attempt is forgotten, so the next call tries again. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () =>
    (made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    }));
}

/** A client already made, for callers that hold one (tests, the sandbox). */
export const madeClient =
  <C>(client: C): LazyClient<C> =>
  () =>
    Promise.resolve(client);

/** SDK v3 clients with adaptive retry; only `endpoint` differs between AWS and the sandbox. */
export function createAwsClients(options: AwsClientOptions): AwsClients {
  const config = {
    region: options.region,
    retryMode: 'adaptive',
    maxAttempts: options.maxAttempts ?? 8,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
  return {
    ec2: once(async () => new (await import('@aws-sdk/client-ec2')).EC2Client(config)),
    autoScaling: once(async () => new (await import('@aws-sdk/client-auto-scaling')).AutoScalingClient(config)),
    eks: once(async () => new (await import('@aws-sdk/client-eks')).EKSClient(config)),
    eventBridge: once(async () => new (await import('@aws-sdk/client-eventbridge')).EventBridgeClient(config)),
    sfn: once(async () => new (await import('@aws-sdk/client-sfn')).SFNClient(config)),
  };
}
