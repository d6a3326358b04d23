import type { DescribeInstancesCommandInput, EC2Client, Filter } from '@aws-sdk/client-ec2';
import { isInstanceId, type InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { EC2_SWEEP_LISTING } from '@ec2-node-reconciler/model/contract/api-budgets.js';
import { CLUSTER_TAG_EKS, clusterOwnershipTag, DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import type { InstanceView, ScheduledEvent } from '@ec2-node-reconciler/model/observation.js';
import { mapBounded } from '../support/bounded.js';
import { BytePool } from '../support/byte-pool.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import { instanceIdPartitions } from './id-partitions.js';
import { SCHEDULED_EVENT_CODES, toInstanceView, toScheduledEvents } from './instance-view.js';
import { parseInstancesPage, type InstancesPage } from './instances-xml.js';
import type { LazyClient } from './clients.js';
import { readBodyInstead } from './read-body.js';

/** EC2 accepts at most 200 values in one filter. */
export const FILTER_BATCH = 200;
/** DescribeInstances page size for filtered listings (the API maximum). */
export const PAGE_SIZE = 1000;
/** Lookups by id or name in flight at once: EC2's Describe* bucket refills 20 a second per account. */
export const LOOKUP_CONCURRENCY = 5;

export interface InstanceLookup {
  readonly found: InstanceView[];
  /** Looked up and not returned: unknown to EC2. */
  readonly notFound: InstanceId[];
  /** Ids whose batch failed, with the error: their pairs are `unknown` this run. */
  readonly errors: Map<InstanceId, string>;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** What the SDK is left to parse once the page has been read (a valid, empty DescribeInstances answer). */
const EMPTY_PAGE =
  '<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><reservationSet/></DescribeInstancesResponse>';

/**
 * One DescribeInstances page, through the SDK but read by parseInstancesPage instead of the SDK's
 * XML deserializer (read-body.ts); a page the scanner does not know is left to the SDK, so the
 * result never depends on the shortcut.
 */
async function describePage(
  ec2: LazyClient<EC2Client>,
  input: DescribeInstancesCommandInput,
  buffers: BytePool,
): Promise<InstancesPage> {
  const [client, { DescribeInstancesCommand }] = await Promise.all([ec2(), import('@aws-sdk/client-ec2')]);
  const command = new DescribeInstancesCommand(input);
  const read = readBodyInstead(command, parseInstancesPage, EMPTY_PAGE, buffers);
  const output = await client.send(command);
  const page = read();
  if (page) return page;
  const instances: InstanceView[] = [];
  for (const reservation of output.Reservations ?? []) {
    for (const instance of reservation.Instances ?? []) {
      const view = toInstanceView(instance);
      if (view) instances.push(view);
    }
  }
  return { instances, ...(output.NextToken ? { nextToken: output.NextToken } : {}) };
}

/**
 * Every page of one listing, one after another (a NextToken names the next). `first` is a page of
 * this listing already read; `stopped` ends the chain before its next page (a sibling listing failed).
 */
async function describeAll(
  ec2: LazyClient<EC2Client>,
  filters: Filter[],
  buffers: BytePool,
  { first, stopped = () => false }: { readonly first?: InstancesPage; readonly stopped?: () => boolean } = {},
): Promise<InstanceView[]> {
  const out: InstanceView[] = [...(first?.instances ?? [])];
  let token = first?.nextToken;
  if (first && !token) return out;
  do {
    if (stopped()) throw new Error('listing instances: stopped, another partition of the listing failed');
    const page = await describePage(
      ec2,
      { Filters: filters, MaxResults: PAGE_SIZE, ...(token ? { NextToken: token } : {}) },
      buffers,
    );
    out.push(...page.instances);
    token = page.nextToken;
  } while (token);
  return out;
}

/**
 * Every instance `filters` match, as one listing if it fits one page, else as EC2_SWEEP_LISTING's
 * disjoint partitions read at once (id-partitions.ts): each instance in exactly one, whatever it
 * does meanwhile, so the union is what one listing would have read, without duplicates.
 *
 * The first page is asked for alone, without a partition: most clusters fit one page, and stay one
 * call. Its NextToken says there is more, not how much; it cannot be split (it continues this
 * listing only), so the partitions read everything again and that page is dropped: one call more
 * for a listing of many. A partition that fails fails the listing, as a failed page of one listing
 * does: the caller never takes part of the instances for all of them (clusterInstancesComplete).
 * The others then stop before their next page.
 */
async function describePartitioned(
  ec2: LazyClient<EC2Client>,
  filters: Filter[],
  buffers: BytePool,
  partitions: number,
): Promise<InstanceView[]> {
  const first = await describePage(ec2, { Filters: filters, MaxResults: PAGE_SIZE }, buffers);
  if (!first.nextToken || partitions <= 1) return describeAll(ec2, filters, buffers, { first });
  let failed = false;
  const listings = instanceIdPartitions(partitions).map((values) =>
    describeAll(ec2, [...filters, { Name: 'instance-id', Values: values }], buffers, {
      stopped: () => failed,
    }).catch((error: unknown) => {
      failed = true;
      throw error;
    }),
  );
  return (await Promise.all(listings)).flat();
}

/** EC2 reads the reconciler makes. Every id that reaches a filter has been validated as an InstanceId. */
/** Whether the sweep's listing of the cluster's instances holds this one: tagged with the cluster's name or its ownership tag. */
export const isClusterInstance = (instance: Pick<InstanceView, 'tags'>, cluster: string): boolean =>
  instance.tags[CLUSTER_TAG_EKS] === cluster || instance.tags[clusterOwnershipTag(cluster)] !== undefined;

export class Ec2Adapter {
  /** Where listing pages are assembled, reused from one to the next (byte-pool.ts). */
  private readonly buffers = new BytePool();

  constructor(private readonly ec2: LazyClient<EC2Client>) {}

  /**
   * Instances by id, through the `instance-id` filter rather than InstanceIds: a filter simply
   * omits unknown ids, where InstanceIds fails the whole call with InvalidInstanceID.NotFound.
   */
  async describeByIds(ids: readonly InstanceId[]): Promise<InstanceLookup> {
    const unique = [...new Set(ids)];
    const found: InstanceView[] = [];
    const errors = new Map<InstanceId, string>();
    await mapBounded(chunks(unique, FILTER_BATCH), LOOKUP_CONCURRENCY, async (batch) => {
      try {
        found.push(...(await describeAll(this.ec2, [{ Name: 'instance-id', Values: batch }], this.buffers)));
      } catch (error) {
        for (const id of batch) errors.set(id, errorText(error));
      }
    });
    const seen = new Set(found.map((i) => i.id));
    const notFound = unique.filter((id) => !seen.has(id) && !errors.has(id));
    return { found, notFound, errors };
  }

  /**
   * Every instance tagged as a member of the cluster (either tagging convention), in a listing of
   * pages of 1000. EC2 ANDs filters of different names, so "eks:cluster-name is <cluster> OR
   * kubernetes.io/cluster/<cluster> is set" cannot be one filter; but values of one filter are ORed:
   * asking for instances carrying either tag key, then keeping this cluster's, is one listing where
   * two (EKS managed node groups carry both tags) fetched and parsed every instance twice. The
   * price: in a region shared with other clusters, their managed instances are listed and dropped.
   * More than a page is read in partitions at once (describePartitioned).
   */
  async describeClusterInstances(
    cluster: string,
    partitions: number = EC2_SWEEP_LISTING.partitions,
  ): Promise<InstanceView[]> {
    const tagged = await describePartitioned(
      this.ec2,
      [{ Name: 'tag-key', Values: [CLUSTER_TAG_EKS, clusterOwnershipTag(cluster)] }],
      this.buffers,
      partitions,
    );
    return tagged.filter((i) => isClusterInstance(i, cluster));
  }

  /** Instances by private DNS name, for Nodes that have no providerID. */
  async describeByPrivateDnsNames(names: readonly string[]): Promise<InstanceView[]> {
    const batches = await mapBounded(chunks([...new Set(names)], FILTER_BATCH), LOOKUP_CONCURRENCY, (batch) =>
      describeAll(this.ec2, [{ Name: 'private-dns-name', Values: batch }], this.buffers),
    );
    return batches.flat();
  }

  /**
   * Scheduled events (retirement, stop, reboot, maintenance) of the given instances.
   * DescribeInstanceStatus has no `instance-id` filter (EC2 answers "The filter 'instance-id' is
   * invalid"), and its InstanceIds parameter fails the whole call for one unknown id and cannot be
   * paginated. So ask for the instances that have a scheduled event at all (`event.code`): a short
   * list even in a large account, paginated, and robust to ids EC2 no longer knows.
   */
  async scheduledEvents(ids: readonly InstanceId[]): Promise<Map<InstanceId, ScheduledEvent[]>> {
    const out = new Map<InstanceId, ScheduledEvent[]>();
    const wanted = new Set<string>(ids);
    if (wanted.size === 0) return out;
    const [client, { paginateDescribeInstanceStatus }] = await Promise.all([this.ec2(), import('@aws-sdk/client-ec2')]);
    const pages = paginateDescribeInstanceStatus(
      { client, pageSize: PAGE_SIZE },
      { Filters: [{ Name: 'event.code', Values: [...SCHEDULED_EVENT_CODES] }], IncludeAllInstances: true },
    );
    for await (const page of pages) {
      for (const status of page.InstanceStatuses ?? []) {
        const id = status.InstanceId;
        if (!isInstanceId(id) || !wanted.has(id)) continue;
        const events = toScheduledEvents(status.Events);
        if (events.length > 0) out.set(id, events);
      }
    }
    return out;
  }

  /** Marks an instance for decommissioning (the operator's `decommission` command). */
  async tagDecommission(id: InstanceId, reason: string): Promise<void> {
    const [client, { CreateTagsCommand }] = await Promise.all([this.ec2(), import('@aws-sdk/client-ec2')]);
    await client.send(new CreateTagsCommand({ Resources: [id], Tags: [{ Key: DECOMMISSION_TAG, Value: reason }] }));
  }

  /**
   * Removes the decommission tag (the operator's `decommission --undo`), only with the value it was
   * read with: EC2 deletes a tag given with a value only when it still has that value, so a tag set
   * again since, by someone else, stays.
   */
  async untagDecommission(id: InstanceId, value: string): Promise<void> {
    const [client, { DeleteTagsCommand }] = await Promise.all([this.ec2(), import('@aws-sdk/client-ec2')]);
    await client.send(new DeleteTagsCommand({ Resources: [id], Tags: [{ Key: DECOMMISSION_TAG, Value: value }] }));
  }
}
