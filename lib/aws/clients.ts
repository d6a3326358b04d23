import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SFNClient } from '@aws-sdk/client-sfn';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

export interface AwsClientOptions {
  readonly region: string;
  /** One endpoint for every service: the sandbox's AWS emulator; unset in AWS. */
  readonly endpoint?: string;
  readonly credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Retries for throttling (adaptive mode: client-side rate limiting as EC2 throttles). */
  readonly maxAttempts?: number;
}

export interface AwsClients {
  readonly ec2: EC2Client;
  readonly autoScaling: AutoScalingClient;
  readonly eks: EKSClient;
  readonly eventBridge: EventBridgeClient;
  readonly sfn: SFNClient;
}

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
    ec2: new EC2Client(config),
    autoScaling: new AutoScalingClient(config),
    eks: new EKSClient(config),
    eventBridge: new EventBridgeClient(config),
    sfn: new SFNClient(config),
  };
}
