// What "the same outcome" means for the chaos differential: the end state of a world, reduced to
// what the reconciler decides (which Nodes exist and as which incarnation, their cordons, taints,
// labels and annotations but for timestamps, which pods are where, lifecycle results, deletions,
// Unhealthy marks, drains and how they ended), and the comparison of two such states. It reads
// the emulators, never the reconciler's reports: the oracle judges with its own code.
import {
  CORDONED_AT_ANNOTATION,
  DRAIN_ANNOTATION,
  DRAIN_AT_ANNOTATION,
  DRAIN_CHAIN_ANNOTATION,
  DRAIN_DEADLINE_ANNOTATION,
  DRAIN_RENEWED_ANNOTATION,
  LABEL_PREFIX,
} from '@ec2-node-reconciler/model/contract/labels.js';
import { controllerOf, type PodObject } from '../kube/index.js';
import type { DeadlineBound } from '../scenario/schema.js';
import type { Sandbox } from '../simulate/sandbox.js';

/**
 * Annotations that hold a moment a fault may move: when the cordon and the drain record were made
 * and last renewed, and the drain's deadline when no signal set one (the claim's time + drainTimeout).
 * They are compared as present or absent, not by value.
 */
const MOMENT_ANNOTATIONS: ReadonlySet<string> = new Set([
  CORDONED_AT_ANNOTATION,
  DRAIN_AT_ANNOTATION,
  DRAIN_DEADLINE_ANNOTATION,
  DRAIN_RENEWED_ANNOTATION,
]);

/**
 * The drain record's execution name says which signal started the drain (an event's id, a sweep's
 * minute): under faults another signal may get there first; and which chained execution runs it
 * (retries lengthen a workflow's history). Compared as present or absent; the drain's outcome is
 * compared by its node (EndState.drains).
 */
const IDENTITY_ANNOTATIONS: ReadonlySet<string> = new Set([DRAIN_ANNOTATION, DRAIN_CHAIN_ANNOTATION]);

/** The objects as seeded, before the first step: an end state tells the seeded incarnations from later ones. */
export interface SeededIdentity {
  /** Node name → uid. */
  readonly nodes: ReadonlyMap<string, string>;
  /** `namespace/name` → uid. */
  readonly pods: ReadonlyMap<string, string>;
  /** Node name → the instance its providerID names. */
  readonly instanceOfNode: ReadonlyMap<string, string>;
  /** An end state's pod key (podState) → the nodes its pods were seeded on. */
  readonly podNodes: ReadonlyMap<string, readonly string[]>;
}

export function seededIdentity(sandbox: Sandbox): SeededIdentity {
  const { store } = sandbox.kube;
  const instanceOfNode = new Map<string, string>();
  for (const node of sandbox.scenario.nodes) {
    const id = /\/(i-[0-9a-f]+)$/.exec(node.providerID ?? '')?.[1];
    if (id !== undefined) instanceOfNode.set(node.name, id);
  }
  const podNodes = new Map<string, string[]>();
  for (const pod of store.listPods()) {
    const node = pod.spec?.nodeName;
    if (node === undefined) continue;
    for (const key of [podKey(pod), replacementsKey(pod)]) podNodes.set(key, [...(podNodes.get(key) ?? []), node]);
  }
  return {
    nodes: new Map(store.listNodes().map((n) => [n.metadata.name ?? '', n.metadata.uid ?? ''])),
    pods: new Map(store.listPods().map((p) => [podKey(p), p.metadata.uid ?? ''])),
    instanceOfNode,
    podNodes,
  };
}

const podKey = (pod: PodObject) => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;
/** Where a controller's replacements for a pod are counted: under its owner. */
function replacementsKey(pod: PodObject): string {
  const owner = controllerOf(pod);
  return `${pod.metadata.namespace ?? 'default'}/${owner ? `${owner.kind}/${owner.name}` : (pod.metadata.name ?? '')} (replacements)`;
}
/** The labels or annotations under our prefix: the only ones of a joined node that carry no name of its own. */
const ours = (record: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(record).filter(([k]) => k.startsWith(`${LABEL_PREFIX}/`)));
const sorted = <T>(values: readonly T[]): T[] => [...values].sort();
const sortedRecord = (record: Readonly<Record<string, string>> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(record ?? {}).sort(([x], [y]) => x.localeCompare(y)));

export interface NodeEnd {
  /** `seeded`: the object the scenario seeded; `re-registered`: its kubelet made a new one; `joined`: a machine launched mid-run. */
  readonly incarnation: 'seeded' | 're-registered' | 'joined';
  readonly unschedulable: boolean;
  /** `key=value:effect`, sorted. */
  readonly taints: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  /** Every annotation; the moments (MOMENT_ANNOTATIONS) by presence only. */
  readonly annotations: Readonly<Record<string, string>>;
}

export interface EndState {
  readonly nodes: Readonly<Record<string, NodeEnd>>;
  /**
   * Pods: a seeded pod under its name (`node phase`, `terminating` when it is going); one whose name
   * came back with a new uid (a StatefulSet's) as `recreated`; a controller's replacements under
   * their owner (their names number them in creation order). Where a recreated pod or a replacement
   * runs is not compared: the stand-in scheduler puts it on the least loaded node at that moment,
   * which the order of evictions decides, and faults change that order.
   */
  readonly pods: Readonly<Record<string, readonly string[]>>;
  /** Instance → the results of its lifecycle actions (`CONTINUE`, `ABANDON by timeout`). */
  readonly lifecycleActions: Readonly<Record<string, readonly string[]>>;
  /** Node → Node DELETEs the API server carried out. */
  readonly deletions: Readonly<Record<string, number>>;
  /** Instances marked Unhealthy in their group. */
  readonly unhealthy: readonly string[];
  /**
   * Drained node (else instance) → how its last drain execution ended (status and the outcome it
   * reported). The last, not each: a killed drain step may fail one execution that a later signal
   * starts again, and which signal starts it is timing; how the node's drain ended is the outcome.
   */
  readonly drains: Readonly<Record<string, string>>;
}

function podState(pod: PodObject, seeded: SeededIdentity): [key: string, state: string] {
  const key = podKey(pod);
  const phase = `${pod.status?.phase ?? 'Unknown'}${pod.metadata.deletionTimestamp !== undefined ? ' terminating' : ''}`;
  const seededUid = seeded.pods.get(key);
  if (seededUid === pod.metadata.uid) return [key, `${pod.spec?.nodeName ?? '(unscheduled)'} ${phase}`];
  if (seededUid !== undefined) return [key, `recreated ${phase}`];
  return [replacementsKey(pod), phase];
}

function drainEnd(output: string | undefined, status: string): string {
  if (output === undefined) return status;
  try {
    const parsed = JSON.parse(output) as { outcome?: unknown };
    return typeof parsed.outcome === 'string' ? `${status} ${parsed.outcome}` : status;
  } catch {
    return status;
  }
}

/** What a drain execution drains: its input's node, else its instance. */
function subjectOf(input: string): string | undefined {
  try {
    const parsed = JSON.parse(input) as { instanceId?: unknown; node?: unknown };
    const subject = typeof parsed.node === 'string' ? parsed.node : parsed.instanceId;
    return typeof subject === 'string' ? subject : undefined;
  } catch {
    return undefined;
  }
}

export function endState(sandbox: Sandbox, seeded: SeededIdentity): EndState {
  const { store, requestLog } = sandbox.kube;
  const nodes: Record<string, NodeEnd> = {};
  const joined: NodeEnd[] = [];
  for (const node of store.listNodes()) {
    const name = node.metadata.name ?? '';
    const seededUid = seeded.nodes.get(name);
    const annotations = Object.entries(node.metadata.annotations ?? {}).map(([k, v]): [string, string] => [
      k,
      MOMENT_ANNOTATIONS.has(k) ? '(a moment)' : IDENTITY_ANNOTATIONS.has(k) ? '(an execution)' : v,
    ]);
    const end: NodeEnd = {
      incarnation: seededUid === undefined ? 'joined' : seededUid === node.metadata.uid ? 'seeded' : 're-registered',
      unschedulable: node.spec?.unschedulable === true,
      taints: sorted((node.spec?.taints ?? []).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`)),
      labels: sortedRecord(node.metadata.labels),
      annotations: sortedRecord(Object.fromEntries(annotations)),
    };
    if (end.incarnation !== 'joined') nodes[name] = end;
    else
      joined.push({
        ...end,
        labels: ours(end.labels),
        annotations: ours(end.annotations),
      });
  }
  // A machine launched mid-run (a group's replacement) has an id, an address and so a name the
  // emulator draws from one sequence that every call moves: the same machine is named differently
  // under faults. Such nodes are compared as a sorted list, by what the reconciler did to them.
  sorted(joined.map((j) => JSON.stringify(j))).forEach((j, i) => {
    nodes[`(joined #${i + 1})`] = JSON.parse(j) as NodeEnd;
  });
  const pods: Record<string, string[]> = {};
  for (const pod of store.listPods()) {
    const [key, state] = podState(pod, seeded);
    (pods[key] ??= []).push(state);
  }
  for (const key of Object.keys(pods)) pods[key] = sorted(pods[key] ?? []);

  const lifecycleActions: Record<string, string[]> = {};
  for (const c of sandbox.aws.state.autoScaling.completions)
    (lifecycleActions[c.instanceId] ??= []).push(`${c.result}${c.by === 'timeout' ? ' by timeout' : ''}`);
  for (const key of Object.keys(lifecycleActions)) lifecycleActions[key] = sorted(lifecycleActions[key] ?? []);

  const deletions: Record<string, number> = {};
  for (const e of requestLog.filter({ verb: 'delete', resource: 'nodes' }))
    if (e.status >= 200 && e.status < 300) deletions[e.name] = (deletions[e.name] ?? 0) + 1;

  const drains: Record<string, string> = {};
  const executions = [...sandbox.stepFunctions.executions.values()].map((e) => e.record);
  for (const record of executions.sort((x, y) => x.startDate - y.startDate))
    drains[subjectOf(record.input) ?? record.name] = drainEnd(record.output, record.status);
  return {
    nodes,
    pods,
    lifecycleActions,
    deletions,
    unhealthy: sorted([
      ...new Set(
        sandbox.aws.state.autoScaling.healthChanges
          .filter((c) => c.healthStatus === 'UNHEALTHY')
          .map((c) => c.instanceId),
      ),
    ]),
    drains,
  };
}

/** One way the two end states differ. */
export interface Difference {
  /** `nodes.NAME`, `pods.KEY`, `lifecycleActions.ID`, `deletions.NAME`, `unhealthy`, `drains.NODE`. */
  readonly what: string;
  readonly plain: string;
  readonly chaos: string;
  /** The scenario's deadline-bound entry that excuses it, if one does. */
  readonly excusedBy?: string;
}

/** Which nodes and instances the scenario marks deadline-bound (a node brings its machine, and the other way round). */
export interface DeadlineBoundSet {
  readonly nodes: ReadonlyMap<string, string>;
  readonly instances: ReadonlyMap<string, string>;
}

export function deadlineBoundSet(marks: readonly DeadlineBound[], seeded: SeededIdentity): DeadlineBoundSet {
  const nodes = new Map<string, string>();
  const instances = new Map<string, string>();
  for (const mark of marks) {
    if (mark.node !== undefined) {
      nodes.set(mark.node, mark.why);
      const id = seeded.instanceOfNode.get(mark.node);
      if (id !== undefined) instances.set(id, mark.why);
    }
    if (mark.instance !== undefined) {
      instances.set(mark.instance, mark.why);
      for (const [node, id] of seeded.instanceOfNode) if (id === mark.instance) nodes.set(node, mark.why);
    }
  }
  return { nodes, instances };
}

const text = (value: unknown): string => (value === undefined ? '(none)' : JSON.stringify(value));

const isPlainObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where two values differ, down to the fields of objects both have (a missing object differs whole). */
function leafDifferences(path: string, a: unknown, b: unknown): [string, unknown, unknown][] {
  if (isPlainObject(a) && isPlainObject(b))
    return [...new Set([...Object.keys(a), ...Object.keys(b)])]
      .sort()
      .flatMap((key) => leafDifferences(`${path}.${key}`, a[key], b[key]));
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [[path, a, b]];
}

/**
 * Every difference between the end state without faults and with them. A difference about a
 * deadline-bound node or instance (its Node, its pods, a controller's replacements for them, its
 * lifecycle action, its drain, fewer deletions) carries the mark that excuses it; an extra delete
 * is never excused.
 */
export function compareEndStates(
  plain: EndState,
  chaos: EndState,
  seeded: SeededIdentity,
  bound: DeadlineBoundSet,
): Difference[] {
  const differences: Difference[] = [];
  const add = (what: string, p: unknown, c: unknown, excusedBy: string | undefined) =>
    differences.push({ what, plain: text(p), chaos: text(c), ...(excusedBy !== undefined ? { excusedBy } : {}) });
  const keys = (a: object, b: object) => sorted([...new Set([...Object.keys(a), ...Object.keys(b)])]);
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const byNodes = (names: readonly string[]) => names.map((n) => bound.nodes.get(n)).find((why) => why !== undefined);

  for (const name of keys(plain.nodes, chaos.nodes))
    for (const [path, p, c] of leafDifferences(`nodes.${name}`, plain.nodes[name], chaos.nodes[name]))
      add(path, p, c, bound.nodes.get(name));
  for (const key of keys(plain.pods, chaos.pods))
    if (!same(plain.pods[key], chaos.pods[key]))
      add(`pods.${key}`, plain.pods[key], chaos.pods[key], byNodes(seeded.podNodes.get(key) ?? []));
  for (const id of keys(plain.lifecycleActions, chaos.lifecycleActions))
    if (!same(plain.lifecycleActions[id], chaos.lifecycleActions[id]))
      add(`lifecycleActions.${id}`, plain.lifecycleActions[id], chaos.lifecycleActions[id], bound.instances.get(id));
  for (const name of keys(plain.deletions, chaos.deletions)) {
    const [p, c] = [plain.deletions[name] ?? 0, chaos.deletions[name] ?? 0];
    // Fewer deletions of a deadline-bound Node may be its outcome; an extra delete never is.
    if (p !== c) add(`deletions.${name}`, p, c, c < p ? bound.nodes.get(name) : undefined);
  }
  for (const id of sorted([...new Set([...plain.unhealthy, ...chaos.unhealthy])]))
    if (plain.unhealthy.includes(id) !== chaos.unhealthy.includes(id))
      add(`unhealthy.${id}`, plain.unhealthy.includes(id), chaos.unhealthy.includes(id), bound.instances.get(id));
  for (const subject of keys(plain.drains, chaos.drains))
    if (plain.drains[subject] !== chaos.drains[subject])
      add(
        `drains.${subject}`,
        plain.drains[subject],
        chaos.drains[subject],
        bound.nodes.get(subject) ?? bound.instances.get(subject),
      );
  return differences;
}
