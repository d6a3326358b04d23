import { ownershipOf, type Ownership } from '../classify/ownership.js';
import { zoneCandidateSelectors } from '../kube/zone-candidates.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type {
  DrainExecutionState,
  InstanceView,
  LeaseView,
  NodeView,
  Observation,
} from '@ec2-node-reconciler/model/observation.js';
import type { Signal } from '@ec2-node-reconciler/model/signal.js';
import { formatDuration } from '@ec2-node-reconciler/model/duration.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import type { InstanceLookup } from '../aws/ec2.js';
import type { TerminateHookChoice } from '@ec2-node-reconciler/model/terminate-hook.js';
import { drainStates } from './drains.js';
import type { ObserveDeps } from './deps.js';
import { lookUpTerminateHooks, type HookLook } from './terminate-hooks.js';

export interface ObservedSignals {
  readonly observation: Observation;
  /** What could not be observed: the event must be tried again (its record fails, SQS redelivers it). */
  readonly errors: readonly string[];
  /** What could not be observed, but trying again would not help (the record's last receive): reported only. */
  readonly reported?: readonly string[];
}

export interface ObserveSignalsOptions {
  /** The queue will not deliver this record again: what would be retried is reported instead. */
  readonly lastReceive?: boolean;
}

/** What a warm container read about the Node it remembers for an instance, before EC2 answered. */
interface HintRead {
  readonly name: string;
  /** Present when the read answered (the Node, or undefined for none); absent when it failed. */
  readonly node?: { readonly value: NodeView | undefined };
  readonly lease?: { readonly value: LeaseView | undefined };
}

/** Reads the hinted Node and its Lease together; a failed read is simply not used (the normal search reads again). */
async function readHint(deps: ObserveDeps, name: string): Promise<HintRead> {
  const [node, lease] = await Promise.allSettled([deps.finder.read(name), deps.leases.getLease(name)]);
  return {
    name,
    ...(node.status === 'fulfilled' ? { node: { value: node.value } } : {}),
    ...(lease.status === 'fulfilled' ? { lease: { value: lease.value } } : {}),
  };
}

/**
 * What one pass found for one instance: its Node (when found), Nodes that may be its own, their
 * Leases; or why looking for its Node failed (then nothing is decided for the instance this time).
 */
type InstanceLook =
  | { readonly nodes: readonly NodeView[]; readonly leases: ReadonlyMap<string, LeaseView> }
  | { readonly failed: string };

/**
 * What one lookup pass saw about a set of instances (an SQS batch's): one DescribeInstances per
 * 200 ids, then a search for each instance's Node (sharing the listings among those that need a
 * scan: one of every Node, or one per zone selector), each settling on its own. `observationFor`
 * waits for what one event, or one group of events about the same machines, is about — its own
 * instances' searches and the drains their Nodes name — so a slow or failing search holds up only
 * its own instance's events, never a spot warning about another machine of the batch.
 */
export interface SignalBatchObservation {
  readonly lookup: InstanceLookup;
  /** Each instance's search (never rejects: a failure is a `failed` look); none for another cluster's. */
  readonly looks: ReadonlyMap<InstanceId, Promise<InstanceLook | undefined>>;
  /** Which terminate hook is ours, for each group the lifecycle signals name (never rejects). */
  readonly hooks: ReadonlyMap<string, Promise<HookLook>>;
}

/**
 * Observes only what the signals are about (docs/design.md §3): each instance (by the `instance-id`
 * filter, so an unknown id is an answer, not an error), its Node and that Node's Lease (fetched
 * together when the Node is named after the private DNS name). Round trips, the event path's cost,
 * the same for one instance or a batch of them (their reads go out together):
 * - warm, the container remembers the instance's Node: GET node ∥ GET lease ∥ DescribeInstances,
 *   then act on the Node read, once verified against EC2's answer (providerID, or the names
 *   docs/design.md §1 allows) — the same checks as any Node found;
 * - otherwise: DescribeInstances (∥ DescribeCluster on a cold start), then GET node ∥ GET lease.
 * How far the Node is looked for depends on whose instance it is (docs/design.md §1a): another cluster's
 * costs its DescribeInstances and nothing more (what a warm hint read is dropped); this cluster's or
 * an untagged one (whose Node may name it by providerID, which a sweep links) a GET by name, then,
 * when its Node is not named after it, a list: of every Node for ours, of the Nodes its zone allows for
 * an untagged one (lib/kube/zone-candidates.ts); each list made once for the whole pass.
 */
export async function observeSignalBatch(
  deps: ObserveDeps,
  signals: readonly Signal[],
): Promise<SignalBatchObservation> {
  const ids = [...new Set(signals.map((s) => s.instanceId))];
  // Whose lifecycle action it is, asked while EC2 is (docs/design.md §1c: the sweep's rule).
  const hooks = lookUpTerminateHooks(
    deps,
    signals.flatMap((s) => (s.lifecycle ? [s.lifecycle.group] : [])),
  );
  const hinted = new Map<InstanceId, Promise<HintRead>>();
  for (const id of ids) {
    const hint = deps.finder.hint(id);
    if (hint !== undefined) hinted.set(id, readHint(deps, hint));
  }
  const lookup = await deps.ec2.describeByIds(ids);
  const byId = new Map<InstanceId, InstanceView>(lookup.found.map((i) => [i.id, i]));
  // One list per selector for the whole pass (an SQS batch's instances), however many scan it.
  const listings = new Map<string, Promise<readonly NodeView[]>>();
  const listed = (labelSelector?: string): Promise<readonly NodeView[]> => {
    const key = labelSelector ?? '';
    const listing = listings.get(key) ?? deps.nodes.listNodes(labelSelector);
    listings.set(key, listing);
    return listing;
  };
  /**
   * The Nodes a scan for `instance` reads. Ours: every Node. An unmarked one (most often the account's
   * other workloads, event after event): only those whose zone label allows its zone, since a Node is
   * labelled with its own machine's zone. A Node that lies about its zone is linked by the next sweep.
   */
  const candidatesFor = (instance: InstanceView, owner: Ownership): (() => Promise<readonly NodeView[]>) => {
    const selectors = owner.kind === 'unmarked' ? zoneCandidateSelectors(instance.zone) : undefined;
    return async () => {
      // A list of every Node this pass makes anyway (for one of ours) holds the candidates too.
      if (selectors === undefined || listings.has('')) return listed();
      // Two lists, two snapshots: a Node could be in both (the find takes the first that names it), or in
      // neither when its label came between them; the next sweep links what this misses.
      return (await Promise.all(selectors.map(listed))).flat();
    };
  };

  /** The search for one instance's Node; undefined for another cluster's instance (never looked for). */
  const lookFor = async (id: InstanceId): Promise<InstanceLook | undefined> => {
    const instance = byId.get(id);
    const owner = instance ? ownershipOf(instance, deps) : undefined;
    if (owner?.kind === 'foreign') return undefined;
    // As a sweep links them (docs/design.md §1a): by providerID first, so an untagged instance's Node with a
    // custom hostname is found too (its providerID then makes the instance this cluster's).
    // A terminated machine's DNS name is EC2's to reuse: it names nothing any more.
    const dnsName = instance && instance.state !== 'terminated' ? instance.privateDnsName : undefined;
    const early = await hinted.get(id);
    const read = new Map<string, NodeView | undefined>(early?.node ? [[early.name, early.node.value]] : []);
    const leasesRead = new Map<string, LeaseView | undefined>(early?.lease ? [[early.name, early.lease.value]] : []);
    const leaseOf = (name: string): Promise<LeaseView | undefined> =>
      leasesRead.has(name) ? Promise.resolve(leasesRead.get(name)) : deps.leases.getLease(name);
    // Nodes are usually named after the private DNS name: ask for that Lease at the same time.
    const [found, guessedLease] = await Promise.all([
      deps.finder.find(id, {
        ...(dnsName ? { privateDnsName: dnsName, names: [dnsName] } : {}),
        read,
        ...(instance && owner ? { scan: true, candidates: candidatesFor(instance, owner) } : { scan: false }),
      }),
      dnsName ? leaseOf(dnsName) : undefined,
    ]);
    if (dnsName) leasesRead.set(dnsName, guessedLease);
    const nodes = [...found.unlinked];
    const leases = new Map<string, LeaseView>();
    const node = found.node;
    if (node) {
      nodes.push(node);
      const lease = await leaseOf(node.name);
      if (lease) leases.set(node.name, lease);
    }
    return { nodes, leases };
  };

  // A Node that could not be read fails its own instance, not the whole pass.
  const looks = new Map(
    ids
      .filter((id) => !lookup.errors.has(id))
      .map((id) => [id, lookFor(id).catch((error: unknown): InstanceLook => ({ failed: errorText(error) }))] as const),
  );
  return { lookup, looks, hooks };
}

/**
 * What `signals` are about, cut from a pass that looked at (at least) their instances: the
 * observation an event run classifies, and what could not be observed for them.
 */
export async function observationFor(
  batch: SignalBatchObservation,
  signals: readonly Signal[],
  deps: Pick<ObserveDeps, 'clock' | 'settings' | 'drains'>,
  options: ObserveSignalsOptions = {},
): Promise<ObservedSignals> {
  const ids = new Set(signals.map((s) => s.instanceId));
  const { lookup } = batch;
  const nodes = new Map<string, NodeView>();
  const leases = new Map<string, LeaseView>();
  // A failed Node search is a failed lookup (docs/design.md §1a): the pair is `unknown`, nothing mutates it.
  const lookupErrors = new Map([...lookup.errors].filter(([id]) => ids.has(id)));
  const looks = await Promise.all([...ids].map(async (id) => [id, await batch.looks.get(id)] as const));
  for (const [id, look] of looks) {
    if (look === undefined) continue;
    if ('failed' in look) {
      lookupErrors.set(id, `looking for its Node: ${look.failed}`);
      continue;
    }
    for (const node of look.nodes) nodes.set(node.name, node);
    for (const [name, lease] of look.leases) leases.set(name, lease);
  }
  const drains: ReadonlyMap<string, DrainExecutionState> = (await drainStates(deps, [...nodes.values()])).states;
  const terminateHooks = new Map<string, TerminateHookChoice>();
  const hookErrors: string[] = [];
  for (const group of new Set(signals.flatMap((s) => (s.lifecycle ? [s.lifecycle.group] : [])))) {
    const look = await batch.hooks.get(group);
    if (look === undefined) continue;
    if ('failed' in look) hookErrors.push(look.failed);
    else terminateHooks.set(group, look.choice);
  }
  const notFound = lookup.notFound.filter((id) => ids.has(id));

  const now = deps.clock.now();
  // EC2 reads are eventually consistent: a machine just launched may not be returned yet. Until the
  // event is notFoundGrace old, its absence is not an answer: try again rather than lose the event
  // (on the queue's last delivery it is reported instead, so the event is not dead-lettered for it).
  const unseen = signals
    .filter((s) => notFound.includes(s.instanceId))
    .map((s) => ({ s, age: now - s.observedAt }))
    .map(({ s, age }) => ({
      young: age < deps.settings.notFoundGrace,
      text: `EC2 does not return ${s.instanceId} (the ${s.kind} event is ${formatDuration(Math.max(0, Math.round(age / 1000)) * 1000)} old; notFoundGrace ${formatDuration(deps.settings.notFoundGrace)})`,
    }));
  const retryUnseen = options.lastReceive !== true;
  const errors = [
    ...[...lookupErrors].map(([id, error]) => `looking up ${id} failed: ${error}`),
    ...unseen.filter((u) => u.young && retryUnseen).map((u) => `${u.text}: trying again`),
    ...[...drains].flatMap(([name, state]) =>
      state.status === 'unknown' ? [`asking about drain ${name} failed: ${state.error}`] : [],
    ),
    // Whose lifecycle action it is could not be told: nothing is done for it (it is not acted on
    // without its group's answer), and the event is tried again unless this was its last delivery.
    ...(retryUnseen ? hookErrors : []),
  ];
  const reported = [
    ...unseen.filter((u) => !u.young || !retryUnseen).map((u) => `${u.text}: nothing done for it`),
    ...(retryUnseen ? [] : hookErrors.map((e) => `${e}: the lifecycle action is left alone`)),
  ];

  return {
    observation: {
      scope: 'event',
      nodes: [...nodes.values()],
      leases,
      instances: lookup.found.filter((i) => ids.has(i.id)),
      notFound: new Set(notFound),
      lookupErrors,
      clusterInstancesComplete: false,
      drains,
      terminateHooks,
    },
    errors: [...new Set(errors)],
    reported: [...new Set(reported)],
  };
}

/** One event's observation: a pass over its own instances (observeSignalBatch), cut for its signals. */
export async function observeSignals(
  deps: ObserveDeps,
  signals: readonly Signal[],
  options: ObserveSignalsOptions = {},
): Promise<ObservedSignals> {
  const batch = await observeSignalBatch(deps, signals);
  return observationFor(batch, signals, deps, options);
}
