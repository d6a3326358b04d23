// `snapshot`: the live cluster and account, read through the reconciler's own read paths (a sweep's
// observation: Nodes, Leases, the cluster's instances with their Auto Scaling state and scheduled
// events), plus what the sandbox needs to rebuild the world a drain meets (pods, DaemonSets, PDBs) and
// the groups' terminate hooks, written as a scenario file (docs/scenarios.md) that seeds the sandbox
// with the same world. Read-only: every call is a GET or a Describe*.
//
// Memory stays bounded by the Nodes: the Node projections and instances are kept (the scenario's
// nodes and instances sections come first, and the pods must name a Node it has), but pods, the
// bulk of a cluster, are written page by page as they come, and never held.
import * as z from 'zod';
import type { AutoScalingAdapter } from '../../lib/aws/autoscaling.js';
import { DRAIN_RECORD_ANNOTATIONS, LABEL_PREFIX } from '@ec2-node-reconciler/model/contract/labels.js';
import { toDrainPod } from '../../lib/drain/kube-api.js';
import type { KubeClient } from '../../lib/kube/client.js';
import { listPages } from '../../lib/kube/list.js';
import { ObjectMetaSchema, PodSchema } from '../../lib/kube/schemas.js';
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import { LIFECYCLE_STATES } from '@ec2-node-reconciler/model/lifecycle-states.js';
import type { InstanceView, LeaseView, NodeView } from '@ec2-node-reconciler/model/observation.js';
import type { TerminateHook } from '@ec2-node-reconciler/model/terminate-hook.js';
import type { ObserveDeps } from '../../lib/observe/deps.js';
import { observeSweep } from '../../lib/observe/sweep.js';
import { mapBounded } from '../../lib/support/bounded.js';
import type { SnapshotNames } from './names.js';

export interface SnapshotDeps {
  /** The sweep's reads (the CLI's live wiring): Nodes, Leases, instances, groups, scheduled events. */
  readonly observe: ObserveDeps & { readonly region: string };
  readonly autoScaling: Pick<AutoScalingAdapter, 'terminateHooks'>;
  /** Pods, DaemonSets and PDBs are read through it. */
  readonly kube: KubeClient;
  readonly clock: Clock;
  readonly cluster: { readonly name: string; readonly region: string; readonly accountId: string };
}

/** Where the scenario goes, a piece at a time (a file, stdout). */
export interface SnapshotSink {
  write(text: string): void;
}

export interface SnapshotSummary {
  readonly start: number;
  readonly instances: number;
  readonly nodes: number;
  readonly pods: number;
  readonly pdbs: number;
  /** What the scenario format cannot say, or what was left out, and why. */
  readonly warnings: readonly string[];
}

const isLifecycleState = (state: string): boolean => (LIFECYCLE_STATES as readonly string[]).includes(state);
const POD_PHASES = new Set(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']);
/** The scenario format's owner: a kind of letters, a DNS-style name. */
const OWNER_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * A kubelet renews its Lease every 10 s (nodeLeaseRenewInterval): one whose Lease is older than two
 * renewals has stopped, and the sandbox's kubelet for it must not renew it either.
 */
const RENEWING_WITHIN_MS = 20_000;

/** Groups whose hooks are asked at once (DescribeLifecycleHooks is throttled per account, as the other Describe* calls). */
const HOOK_CONCURRENCY = 4;

const IntOrString = z.union([z.number(), z.string()]).nullish();
const PdbSchema = z.object({
  metadata: ObjectMetaSchema.default({}),
  spec: z
    .object({
      selector: z
        .object({
          matchLabels: z.record(z.string(), z.string()).nullish(),
          matchExpressions: z.array(z.unknown()).nullish(),
        })
        .nullish(),
      minAvailable: IntOrString,
      maxUnavailable: IntOrString,
    })
    .default({}),
});
const NamedSchema = z.object({ metadata: ObjectMetaSchema.default({}) });

/**
 * A pod's arrays the snapshot never reads, emptied in the raw answer before it is parsed (lib/kube/skim.ts):
 * the containers (images, env, the secrets they reference) and the statuses are most of a pod's bytes.
 */
const UNREAD_POD_ARRAYS = [
  'containers',
  'initContainers',
  'ephemeralContainers',
  'containerStatuses',
  'initContainerStatuses',
  'ephemeralContainerStatuses',
  'conditions',
  'tolerations',
  'managedFields',
  'podIPs',
] as const;

/** A whole number of seconds from `start` back to `at`, as the format writes ages (never negative). */
const ageOf = (start: number, at: number): string => `${Math.max(0, Math.round((start - at) / 1000))}s`;
/** A whole number of seconds from `start` on to `at` (a scheduled event's window); one already begun starts now. */
const aheadOf = (start: number, at: number): string => `${Math.max(0, Math.round((at - start) / 1000))}s`;

/**
 * The scenario as one JSON document (JSON is YAML too, and the loader reads a document that starts
 * with `{` without the YAML parser: seconds, not minutes, for 100,000 pods), one list item a line, each
 * written as it is read: `section` opens a list, `item` gives the text of its next entry.
 */
class ScenarioWriter {
  private entries = 0;
  private opened = false;

  constructor(private readonly sink: SnapshotSink) {}

  head(fields: Readonly<Record<string, unknown>>): void {
    const members = Object.entries(fields).map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`);
    this.sink.write(`{${members.join(',\n')}`);
  }

  /** Closes the list before (if any) and opens `name`'s. */
  section(name: string): void {
    this.close();
    this.sink.write(`,\n${JSON.stringify(name)}: [`);
    this.entries = 0;
    this.opened = true;
  }

  item(value: unknown): string {
    return `${this.entries++ === 0 ? '\n' : ',\n'}  ${JSON.stringify(value)}`;
  }

  write(text: string): void {
    this.sink.write(text);
  }

  /** Ends the document with its steps: a sweep, what the reconciler would do with this world now. */
  end(): void {
    this.close();
    this.sink.write(',\n"steps": [{ "sweep": {} }]\n}\n');
  }

  private close(): void {
    if (this.opened) this.sink.write(this.entries === 0 ? ']' : '\n]');
    this.opened = false;
  }
}

/** Reads the cluster and the account, and writes the scenario to `sink`. */
export async function takeSnapshot(
  deps: SnapshotDeps,
  names: SnapshotNames,
  sink: SnapshotSink,
): Promise<SnapshotSummary> {
  // Whole seconds, as the sandbox starts its clock: the ages written are exact from there.
  const start = Math.floor(deps.clock.now() / 1000) * 1000;
  const warnings: string[] = [];
  // Read while the sweep's reads run (neither needs the other); each failure is heard once, awaited below.
  const daemonSetsRead = listDaemonSets(deps.kube);
  const pdbsRead = readPdbs(deps.kube, names, warnings);
  daemonSetsRead.catch(() => undefined);
  pdbsRead.catch(() => undefined);
  const { observation, errors } = await observeSweep(deps.observe);
  const lookupErrors = [...observation.lookupErrors].map(([id, error]) => `${id}: ${error}`);
  // A world with a hole in it would answer a what-if wrongly: a failed read fails the snapshot.
  if (errors.length > 0 || lookupErrors.length > 0)
    throw new Error(`reading the account: ${[...errors, ...lookupErrors].join('; ')}`);

  const groups = [...new Set(observation.instances.flatMap((i) => (i.autoScaling ? [i.autoScaling.group] : [])))];
  const hooks = new Map<string, TerminateHook | undefined>();
  const hookNames = new Map<string, readonly string[]>();
  await mapBounded(groups, HOOK_CONCURRENCY, async (group) => {
    let found: TerminateHook[];
    try {
      found = await deps.autoScaling.terminateHooks(group);
    } catch (error) {
      throw new Error(`describing lifecycle hooks of ${group}`, { cause: error });
    }
    hookNames.set(
      group,
      found.map((h) => h.name),
    );
    if (found.length > 1)
      warnings.push(
        `group ${group} has ${found.length} terminate hooks (${found.map((h) => h.name).join(', ')}): the format holds one, ${found[0]?.name ?? ''} is written`,
      );
    hooks.set(group, found[0]);
  });
  const daemonSets = await daemonSetsRead;

  const cluster = deps.cluster.name;
  const clusterName = names.cluster(cluster);
  const writer = new ScenarioWriter(sink);
  // The name says what it is (a JSON document has no comments): `snapshot-<cluster>`, the moment in `start`.
  writer.head({
    name: `snapshot-${clusterName}`,
    start: new Date(start).toISOString(),
    cluster: { name: clusterName, region: deps.cluster.region, accountId: names.accountId(deps.cluster.accountId) },
  });

  const instances = observation.instances;
  writer.section('instances');
  for (const instance of instances)
    writer.write(writer.item(instanceEntry(instance, start, cluster, names, hooks, warnings)));

  const nodeNames = new Set<string>();
  const nodes = observation.nodes;
  writer.section('nodes');
  for (const node of nodes) {
    nodeNames.add(node.name);
    const context = { node: node.name, cluster, groups: hookNames };
    writer.write(writer.item(nodeEntry(node, observation.leases.get(node.name), start, names, context)));
  }

  writer.section('pods');
  const pods = await writePods(deps.kube, writer, { nodeNames, daemonSets, names, warnings });
  const pdbs = await pdbsRead;
  writer.section('pdbs');
  for (const pdb of pdbs) writer.write(writer.item(pdb));
  writer.end();
  return { start, instances: instances.length, nodes: nodes.length, pods, pdbs: pdbs.length, warnings };
}

function instanceEntry(
  instance: InstanceView,
  start: number,
  cluster: string,
  names: SnapshotNames,
  hooks: ReadonlyMap<string, TerminateHook | undefined>,
  warnings: string[],
): Record<string, unknown> {
  const asg = instance.autoScaling;
  let autoScaling: Record<string, unknown> | undefined;
  if (asg) {
    const hook = hooks.get(asg.group);
    const lifecycleState = isLifecycleState(asg.lifecycleState) ? asg.lifecycleState : 'InService';
    if (lifecycleState !== asg.lifecycleState)
      warnings.push(
        `${instance.id}: lifecycle state ${asg.lifecycleState} is not one the sandbox knows: written InService`,
      );
    autoScaling = {
      group: names.group(asg.group),
      lifecycleState,
      ...(hook ? { hook: names.hook(hook.name) } : {}),
      ...(hook?.heartbeatTimeoutSeconds !== undefined ? { heartbeatTimeout: `${hook.heartbeatTimeoutSeconds}s` } : {}),
      ...(hook?.defaultResult ? { defaultResult: hook.defaultResult } : {}),
    };
  }
  // The sandbox tags a group's members itself (aws:autoscaling:groupName), as Auto Scaling does.
  const tags = names.tags(instance.tags, cluster);
  if (autoScaling) delete tags['aws:autoscaling:groupName'];
  return {
    id: names.instanceId(instance.id),
    state: instance.state,
    zone: instance.zone,
    ...(instance.privateDnsName ? { privateDnsName: names.hostName(instance.privateDnsName) } : {}),
    launchedAgo: ageOf(start, instance.launchedAt),
    tags,
    spot: instance.spot,
    ...(autoScaling ? { autoScaling } : {}),
    scheduledEvents: instance.scheduledEvents.map((event) => {
      const description = names.description(event.description);
      return {
        code: event.code,
        notBefore: aheadOf(start, event.notBefore),
        ...(event.notAfter !== undefined ? { notAfter: aheadOf(start, event.notAfter) } : {}),
        ...(description ? { description } : {}),
      };
    }),
  };
}

/** The reconciler's own annotations (cordon marks, drain records): the only ones it reads. */
const isReconcilerAnnotation = (key: string): boolean =>
  key.startsWith(`${LABEL_PREFIX}/`) || (DRAIN_RECORD_ANNOTATIONS as readonly string[]).includes(key);

function nodeEntry(
  node: NodeView,
  lease: LeaseView | undefined,
  start: number,
  names: SnapshotNames,
  context: Parameters<SnapshotNames['annotationValue']>[1],
): Record<string, unknown> {
  const conditions: Record<string, { status: string; since: string }> = {};
  for (const [type, condition] of Object.entries(node.conditions ?? {})) {
    // Ready without a transition time is written as `ready` below; the format dates every other condition.
    if (type === 'Ready' && condition.since === undefined) continue;
    conditions[type] = { status: condition.status, since: ageOf(start, condition.since ?? start) };
  }
  const readyOnly = conditions['Ready'] === undefined && node.ready !== undefined ? { ready: node.ready } : {};
  const renewTime = lease?.renewTime;
  const annotations: Record<string, string> = {};
  for (const [key, value] of Object.entries(node.annotations))
    if (isReconcilerAnnotation(key)) annotations[key] = names.annotationValue(value, context);
  return {
    name: names.hostName(node.name),
    ...(node.providerID ? { providerID: names.providerId(node.providerID) } : {}),
    createdAgo: ageOf(start, node.createdAt),
    ...readyOnly,
    conditions,
    heartbeatAgo: renewTime === undefined ? 'none' : ageOf(start, renewTime),
    heartbeating: renewTime !== undefined && start - renewTime <= RENEWING_WITHIN_MS,
    unschedulable: node.unschedulable,
    labels: names.labels(node.labels),
    annotations,
    taints: node.taints.map((t) => ({
      key: names.labelKey(t.key),
      ...(t.value !== undefined ? { value: names.labelValue(t.key, t.value) } : {}),
      effect: t.effect,
    })),
  };
}

async function listDaemonSets(kube: KubeClient): Promise<Set<string>> {
  const out = new Set<string>();
  await listPages(kube, 'apis/apps/v1/daemonsets', NamedSchema, (page) => {
    for (const ds of page.items) out.add(`${ds.metadata.namespace ?? ''}/${ds.metadata.name ?? ''}`);
  }).catch((error: unknown) => {
    throw new Error('listing DaemonSets', { cause: error });
  });
  return out;
}

interface PodContext {
  readonly nodeNames: ReadonlySet<string>;
  readonly daemonSets: ReadonlySet<string>;
  readonly names: SnapshotNames;
  readonly warnings: string[];
}

/**
 * Writes each pod bound to a snapshotted Node, page by page, reduced to what a drain reads (its
 * controller, labels, mirror, emptyDir, phase, grace period, Node): no spec, env, image or secret
 * is read into anything written. Gives how many were written.
 */
async function writePods(kube: KubeClient, writer: ScenarioWriter, context: PodContext): Promise<number> {
  const { nodeNames, daemonSets, names } = context;
  let written = 0;
  let unbound = 0;
  let terminating = 0;
  let elsewhere = 0;
  await listPages(
    kube,
    'api/v1/pods',
    PodSchema,
    (page) => {
      let text = '';
      for (const raw of page.items) {
        const node = raw.spec.nodeName;
        if (node === undefined || node === '') {
          unbound++;
          continue;
        }
        // A Node created after the Nodes were listed: the format needs every pod's Node.
        if (!nodeNames.has(node)) {
          elsewhere++;
          continue;
        }
        const pod = toDrainPod(raw);
        // On its way out: the sandbox would keep it for good (the format has no pod being deleted).
        if (pod.deletionTimestamp !== undefined) {
          terminating++;
          continue;
        }
        const controller = pod.controller;
        // A DaemonSet pod whose DaemonSet is gone is an orphan to a drain (kubectl's --force): as a pod without one.
        const orphaned = controller?.kind === 'DaemonSet' && !daemonSets.has(`${pod.namespace}/${controller.name}`);
        const owner =
          controller && !orphaned && /^[A-Za-z]+$/.test(controller.kind) && OWNER_NAME.test(controller.name)
            ? `${controller.kind}/${names.ownerName(controller.kind, controller.name)}`
            : 'none';
        text += writer.item({
          name: names.objectName('Pod', pod.name),
          namespace: names.namespace(pod.namespace),
          node: names.hostName(node),
          labels: names.labels(raw.metadata.labels ?? {}),
          owner,
          mirror: pod.mirror,
          emptyDir: pod.emptyDir,
          phase: pod.phase !== undefined && POD_PHASES.has(pod.phase) ? pod.phase : 'Pending',
          terminationGracePeriodSeconds: Math.max(0, Math.round(pod.terminationGracePeriodSeconds ?? 30)),
        });
        written++;
      }
      if (text !== '') writer.write(text);
    },
    { emptyArrays: UNREAD_POD_ARRAYS },
  ).catch((error: unknown) => {
    throw new Error('listing pods', { cause: error });
  });
  if (unbound > 0) context.warnings.push(`${unbound} pod(s) bound to no Node (not scheduled) are left out`);
  if (terminating > 0) context.warnings.push(`${terminating} pod(s) being deleted are left out`);
  if (elsewhere > 0)
    context.warnings.push(`${elsewhere} pod(s) on Nodes registered after the Nodes were read are left out`);
  return written;
}

/** The PDBs, in the format's terms (matchLabels selectors); one the format cannot say is left out, with a warning. */
async function readPdbs(
  kube: KubeClient,
  names: SnapshotNames,
  warnings: string[],
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  const bound = (value: string | number | null | undefined): string | number | undefined =>
    typeof value === 'number' ? Math.max(0, Math.round(value)) : typeof value === 'string' ? value : undefined;
  await listPages(kube, 'apis/policy/v1/poddisruptionbudgets', PdbSchema, (page) => {
    for (const pdb of page.items) {
      const namespace = pdb.metadata.namespace ?? 'default';
      const name = pdb.metadata.name ?? '';
      const key = `${namespace}/${name}`;
      const selector = pdb.spec.selector;
      if ((selector?.matchExpressions ?? []).length > 0) {
        warnings.push(`PDB ${key} selects with matchExpressions, which the format cannot say: left out`);
        continue;
      }
      const minAvailable = bound(pdb.spec.minAvailable);
      const maxUnavailable = bound(pdb.spec.maxUnavailable);
      const written = (value: string | number): boolean => typeof value === 'number' || /^\d+%$/.test(value);
      const limit =
        minAvailable !== undefined && written(minAvailable)
          ? { minAvailable }
          : maxUnavailable !== undefined && written(maxUnavailable)
            ? { maxUnavailable }
            : undefined;
      if (limit === undefined) {
        warnings.push(`PDB ${key} has neither minAvailable nor maxUnavailable as a number or a percentage: left out`);
        continue;
      }
      out.push({
        name: names.objectName('PodDisruptionBudget', name),
        namespace: names.namespace(namespace),
        selector: names.labels(selector?.matchLabels ?? {}),
        ...limit,
      });
    }
  }).catch((error: unknown) => {
    throw new Error('listing PodDisruptionBudgets', { cause: error });
  });
  return out;
}
