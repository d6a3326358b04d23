import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SFNClient } from '@aws-sdk/client-sfn';
import { STSClient } from '@aws-sdk/client-sts';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import {
  startAwsEmulator,
  type AwsEmulator,
  type AwsEmulatorOptions,
  type SeedInstance,
} from '../../../src/aws/index.js';

/** 2026-11-29T12:00:00Z, the scenarios' customary start. */
export const START = Date.UTC(2026, 10, 29, 12);

/** The SDK v3 clients the product uses, pointed at one endpoint (only `endpoint` differs from production). */
export interface Clients {
  readonly ec2: EC2Client;
  readonly autoScaling: AutoScalingClient;
  readonly eks: EKSClient;
  readonly sts: STSClient;
  readonly events: EventBridgeClient;
  readonly sfn: SFNClient;
}

export function clientsFor(config: {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
}): Clients {
  return {
    ec2: new EC2Client(config),
    autoScaling: new AutoScalingClient(config),
    eks: new EKSClient(config),
    sts: new STSClient(config),
    events: new EventBridgeClient(config),
    sfn: new SFNClient(config),
  };
}

export function destroyClients(clients: Clients): void {
  Object.values(clients).forEach((client: { destroy(): void }) => client.destroy());
}

export interface World extends Clients {
  readonly aws: AwsEmulator;
  readonly clock: VirtualClock;
  close(): Promise<void>;
}

/** An emulator on a virtual clock at START, with SDK clients for it. */
export async function startWorld(options: Omit<AwsEmulatorOptions, 'clock'> & { start?: number } = {}): Promise<World> {
  const clock = new VirtualClock(options.start ?? START);
  const aws = await startAwsEmulator({ ...options, clock });
  const clients = clientsFor(aws.clientConfig());
  return {
    ...clients,
    aws,
    clock,
    close: async () => {
      destroyClients(clients);
      await aws.close();
    },
  };
}

/** `i-0000000000000000n` style ids, 17 hex digits. */
export const instanceId = (n: number): string => `i-0${n.toString(16).padStart(16, '0')}`;

/** A running, cluster-tagged instance in us-east-1a; override what the test is about. */
export function anInstance(n: number, overrides: Partial<SeedInstance> = {}): SeedInstance {
  return {
    id: instanceId(n),
    state: 'running',
    zone: 'us-east-1a',
    launchedAgo: '2h',
    tags: { 'eks:cluster-name': 'demo' },
    ...overrides,
  };
}

/** The error an SDK call failed with (code as `name`, HTTP status); fails the test when the call succeeds. */
export async function errorOf(promise: Promise<unknown>): Promise<{ name: string; message: string; status?: number }> {
  try {
    await promise;
  } catch (error) {
    const e = error as Error & { $metadata?: { httpStatusCode?: number } };
    return { name: e.name, message: e.message, status: e.$metadata?.httpStatusCode };
  }
  throw new Error('expected the call to fail');
}
