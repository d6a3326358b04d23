// The sweep's listing of the cluster's instances (issue #28 item 8): more than a page is read as
// disjoint partitions on the instance id's last digit, at once. Against the AWS emulator: the union is
// what one sequential listing reads, each instance once, even while instances change state between
// pages; a listing of one page is still one call; a failed partition fails the listing.
import { EC2Client } from '@aws-sdk/client-ec2';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { madeClient } from '../../lib/aws/clients.js';
import { Ec2Adapter } from '../../lib/aws/ec2.js';
import { instanceIdPartitions } from '../../lib/aws/id-partitions.js';
import { EC2_SWEEP_LISTING } from '@ec2-node-reconciler/model/contract/api-budgets.js';
import { CLUSTER_TAG_EKS, clusterOwnershipTag } from '@ec2-node-reconciler/model/contract/labels.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { INSTANCE_ID_PATTERN, type InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { InstanceView } from '@ec2-node-reconciler/model/observation.js';
import { startAwsEmulator, type AwsEmulator, type RequestLogEntry } from '@ec2-node-reconciler/sandbox/aws/index.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const CLUSTER = 'demo';

/** 17-digit ids for most, legacy 8-digit ones for every seventh: both forms end in a hex digit. */
const idOf = (n: number): string =>
  n % 7 === 0 ? `i-${(0x10000000 + n).toString(16)}` : `i-0${(0xabc0000000000 + n).toString(16).padStart(16, '0')}`;

let aws: AwsEmulator;
let ec2: EC2Client;
let adapter: Ec2Adapter;

beforeEach(async () => {
  aws = await startAwsEmulator({ clock: new VirtualClock(NOW), region: 'us-east-1' });
  // One attempt: a failed page is the listing's failure, not a retry's success.
  ec2 = new EC2Client({ ...aws.clientConfig(), maxAttempts: 1 });
  adapter = new Ec2Adapter(madeClient(ec2));
});
afterEach(async () => {
  ec2.destroy();
  await aws.close();
});

/** `count` instances from `from` on, of this cluster (either convention), another cluster, or none. */
function seed(count: number, from = 1): InstanceId[] {
  const ours: InstanceId[] = [];
  const states = ['running', 'running', 'running', 'pending', 'stopping', 'stopped', 'shutting-down'] as const;
  for (let n = from; n < from + count; n++) {
    const kind = n % 10;
    const tags: Record<string, string> =
      kind === 0
        ? {}
        : kind === 1
          ? { [CLUSTER_TAG_EKS]: 'other' }
          : kind === 2
            ? { [clusterOwnershipTag(CLUSTER)]: 'owned' }
            : { [CLUSTER_TAG_EKS]: CLUSTER };
    const id = idOf(n);
    aws.state.seedInstance({ id, state: states[n % states.length] ?? 'running', zone: 'us-east-1a', tags });
    if (kind >= 2) ours.push(id as InstanceId);
  }
  return ours;
}

const describes = (): readonly RequestLogEntry[] =>
  aws.requestLog.filter({ service: 'ec2', operation: 'DescribeInstances' });

interface DescribeParams {
  readonly Filter?: readonly { readonly Name: string; readonly Value: readonly string[] }[];
  readonly NextToken?: string;
}
/** The `instance-id` partition a call asked for ('' for none). */
const partitionOf = (params: unknown): string =>
  ((params as DescribeParams).Filter ?? [])
    .filter((f) => f.Name === 'instance-id')
    .flatMap((f) => f.Value)
    .join(',');

const ids = (instances: readonly InstanceView[]): string[] => instances.map((i) => i.id).sort();

describe('instanceIdPartitions', () => {
  it('should put every last digit of an instance id in exactly one partition, for every count', () => {
    for (let count = 1; count <= 16; count++) {
      const values = instanceIdPartitions(count).flat();
      expect(values.sort()).toEqual([...'0123456789abcdef'].map((d) => `i-*${d}`).sort());
      expect(instanceIdPartitions(count)).toHaveLength(count);
    }
    expect(() => instanceIdPartitions(0)).toThrow(/not a count/);
    expect(() => instanceIdPartitions(17)).toThrow(/not a count/);
  });

  it('should match every id INSTANCE_ID_PATTERN accepts by one partition only', () => {
    const partitions = instanceIdPartitions(EC2_SWEEP_LISTING.partitions).map((values) =>
      values.map((v) => new RegExp(`^${v.replace('*', '.*')}$`)),
    );
    fc.assert(
      fc.property(fc.stringMatching(INSTANCE_ID_PATTERN), (id) => {
        expect(partitions.filter((patterns) => patterns.some((p) => p.test(id)))).toHaveLength(1);
      }),
    );
  });
});

describe('Ec2Adapter.describeClusterInstances', () => {
  it('should read a listing of one page in one call, without partitions', async () => {
    const ours = seed(900);

    const listed = await adapter.describeClusterInstances(CLUSTER);

    expect(ids(listed)).toEqual([...ours].sort());
    expect(describes().map((e) => partitionOf(e.params))).toEqual(['']);
  });

  it('should read the same instances as one sequential listing, each once, in partitions read at once', async () => {
    const ours = seed(5_300);
    aws.faults.latency({ service: 'ec2', ms: 20 });

    const sequential = await adapter.describeClusterInstances(CLUSTER, 1);
    const sequentialCalls = describes().length;
    aws.requestLog.clear();
    const partitioned = await adapter.describeClusterInstances(CLUSTER);

    expect(ids(partitioned)).toEqual(ids(sequential));
    expect(ids(partitioned)).toEqual([...ours].sort());
    expect(new Set(partitioned.map((i) => i.id)).size).toBe(partitioned.length);
    const calls = describes().map((e) => partitionOf(e.params));
    // The first page alone, then every partition's first page before any answer came back.
    expect(calls[0]).toBe('');
    expect(new Set(calls.slice(1, 1 + EC2_SWEEP_LISTING.partitions)).size).toBe(EC2_SWEEP_LISTING.partitions);
    expect(new Set(calls.slice(1))).toEqual(new Set(instanceIdPartitions(EC2_SWEEP_LISTING.partitions).map(String)));
    // At most the first page and each partition's partly filled last page more than a sequential read.
    expect(calls.length).toBeLessThanOrEqual(sequentialCalls + 1 + EC2_SWEEP_LISTING.partitions);
  });

  it('should read every instance once while instances change state between the pages', async () => {
    const ours = seed(4_200);
    let call = 0;
    // Before each page is answered, instances of every partition move on: running ones stop,
    // stopped ones start, some go away. A partition on the state would miss some and read others twice.
    aws.faults.addDecider((service, operation) => {
      if (service !== 'ec2' || operation !== 'DescribeInstances') return undefined;
      call++;
      ours.forEach((id, index) => {
        if (index % 5 !== call % 5) return;
        const state = aws.state.instances.get(id)?.state;
        if (state === 'running') aws.state.instances.setState(id, 'stopped', NOW);
        else if (state === 'stopped') aws.state.instances.setState(id, 'running', NOW);
        else if (state === 'pending') aws.state.instances.setState(id, 'terminated', NOW);
      });
      return undefined;
    });

    const listed = await adapter.describeClusterInstances(CLUSTER);

    expect(call).toBeGreaterThan(EC2_SWEEP_LISTING.partitions);
    expect(ids(listed)).toEqual([...ours].sort());
  });

  it('should fail the listing when one partition’s page fails, as a failed page of one listing does, and ask no more', async () => {
    seed(12_000);
    const failing = instanceIdPartitions(EC2_SWEEP_LISTING.partitions)[1]?.join(',') ?? '';
    /** Fails the calls of `partition` that ask for a later page (`later`) or the first one. */
    const failPages = (partition: string, later: boolean) =>
      aws.faults.addDecider((service, operation, call) =>
        service === 'ec2' &&
        operation === 'DescribeInstances' &&
        partitionOf(call.params) === partition &&
        ((call.params as DescribeParams).NextToken !== undefined) === later
          ? { kind: 'fail', code: 'UnauthorizedOperation', message: 'You are not authorized', status: 403 }
          : undefined,
      );
    const removeSequentialFault = failPages('', true);
    const sequentialFailure = await adapter.describeClusterInstances(CLUSTER, 1).catch((error: unknown) => error);
    removeSequentialFault();
    // One partition's first page fails (10,800 listed instances: three pages a partition).
    failPages(failing, false);
    aws.requestLog.clear();

    const partitionedFailure = await adapter.describeClusterInstances(CLUSTER).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(sequentialFailure).toBeInstanceOf(Error);
    expect(partitionedFailure).toBeInstanceOf(Error);
    expect((partitionedFailure as Error).name).toBe((sequentialFailure as Error).name);
    // The others stopped before their next page: the first page, and two a partition at most (13 in all).
    expect(describes().length).toBeLessThanOrEqual(1 + 2 * EC2_SWEEP_LISTING.partitions);
  });
});
