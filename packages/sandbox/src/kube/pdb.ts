// PodDisruptionBudget arithmetic, as pkg/controller/disruption computes the status and
// pkg/registry/core/pod/storage/eviction.go decides an eviction. Pure: the store feeds it pods.
import { fromLabelSelector, matches } from './selectors.js';
import { controllerOf, type KubeObject, type PdbObject, type PodObject, type ScalableObject } from './types.js';

export type PdbStatus = {
  observedGeneration: number;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  conditions: {
    type: string;
    status: string;
    reason: string;
    message: string;
    observedGeneration: number;
    lastTransitionTime: string;
  }[];
};

export function isPodReady(pod: PodObject): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * Pods a PDB covers, as the eviction API sees it: a nil or empty selector matches nothing
 * ("If a PDB with a nil or empty selector creeps in, it should match nothing, not everything").
 */
export function pdbMatchesPod(pdb: PdbObject, pod: PodObject): boolean {
  if (pdb.metadata.namespace !== pod.metadata.namespace) return false;
  const selector = fromLabelSelector(pdb.spec?.selector);
  if (selector === 'nothing' || selector.requirements.length === 0) return false;
  return matches(selector, pod.metadata.labels);
}

/** The disruption controller's view: policy/v1 treats an empty selector as "all pods in the namespace". */
function controllerMatchesPod(pdb: PdbObject, pod: PodObject): boolean {
  if (pdb.metadata.namespace !== pod.metadata.namespace) return false;
  const selector = fromLabelSelector(pdb.spec?.selector);
  if (selector === 'nothing') return false;
  return matches(selector, pod.metadata.labels);
}

/** intstr.GetScaledValueFromIntOrPercent with roundUp = true. */
function scaled(value: number | string, total: number): number | undefined {
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value);
  if (match) return Math.ceil((Number(match[1]) * total) / 100);
  const n = Number(value);
  return Number.isInteger(n) ? n : undefined;
}

export type ControllerLookup = (
  namespace: string,
  kind: string,
  name: string,
  uid: string,
) => ScalableObject | undefined;

/**
 * The scale of the controllers of `pods` (pkg/controller/disruption getExpectedScale): each distinct
 * ReplicaSet/StatefulSet counts its spec.replicas once. A pod without a scalable controller makes
 * the controller give up (`undefined`), which real clusters report as a SyncFailed condition.
 */
function expectedScale(pods: PodObject[], lookup: ControllerLookup): number | undefined {
  const seen = new Map<string, number>();
  for (const pod of pods) {
    const ref = controllerOf(pod);
    if (ref === undefined) return undefined;
    if (seen.has(ref.uid)) continue;
    const controller = lookup(pod.metadata.namespace ?? '', ref.kind, ref.name, ref.uid);
    if (controller === undefined) return undefined;
    seen.set(ref.uid, controller.spec?.replicas ?? 1);
  }
  let total = 0;
  for (const replicas of seen.values()) total += replicas;
  return total;
}

export function computePdbStatus(
  pdb: PdbObject,
  namespacePods: Iterable<PodObject>,
  lookup: ControllerLookup,
  now: string,
): PdbStatus {
  const pods = [...namespacePods].filter((p) => controllerMatchesPod(pdb, p));
  const generation = pdb.metadata.generation ?? 1;
  let expected = 0;
  let desired = 0;
  let failed = false;
  const spec = pdb.spec ?? {};
  if (spec.maxUnavailable !== undefined) {
    const scale = expectedScale(pods, lookup);
    if (scale === undefined) failed = true;
    else {
      expected = scale;
      desired = Math.max(0, expected - (scaled(spec.maxUnavailable, expected) ?? 0));
    }
  } else if (spec.minAvailable !== undefined) {
    if (typeof spec.minAvailable === 'number') {
      desired = spec.minAvailable;
      expected = pods.length;
    } else {
      const scale = expectedScale(pods, lookup);
      if (scale === undefined) failed = true;
      else {
        expected = scale;
        desired = scaled(spec.minAvailable, expected) ?? 0;
      }
    }
  }
  const healthy = pods.filter((p) => p.metadata.deletionTimestamp === undefined && isPodReady(p)).length;
  const allowed = failed || expected <= 0 ? 0 : Math.max(0, healthy - desired);
  const condition = failed
    ? { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: 'found no controllers for pods' }
    : allowed > 0
      ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '' }
      : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '' };
  return {
    observedGeneration: generation,
    disruptionsAllowed: allowed,
    currentHealthy: failed ? 0 : healthy,
    desiredHealthy: failed ? 0 : desired,
    expectedPods: failed ? 0 : expected,
    conditions: [{ ...condition, observedGeneration: generation, lastTransitionTime: now }],
  };
}

export type EvictionVerdict =
  | { kind: 'delete' }
  | { kind: 'multiple-pdbs' }
  | { kind: 'blocked'; pdb: string; desiredHealthy: number; currentHealthy: number };

/** eviction.go after the canIgnorePDB shortcut: which PDB rule applies to this pod now. */
export function decideEviction(pod: PodObject, pdbs: { pdb: PdbObject; status: PdbStatus }[]): EvictionVerdict {
  const covering = pdbs.filter(({ pdb }) => pdbMatchesPod(pdb, pod));
  if (covering.length > 1) return { kind: 'multiple-pdbs' };
  const [only] = covering;
  if (only === undefined) return { kind: 'delete' };
  const { pdb, status } = only;
  if (!isPodReady(pod)) {
    // An unready pod does not count as healthy, so evicting it costs no budget when the
    // budget is met (IfHealthyBudget, the default) or the PDB says AlwaysAllow.
    if (pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') return { kind: 'delete' };
    if (status.currentHealthy >= status.desiredHealthy && status.desiredHealthy > 0) return { kind: 'delete' };
  }
  if (status.disruptionsAllowed <= 0) {
    return {
      kind: 'blocked',
      pdb: pdb.metadata.name ?? '',
      desiredHealthy: status.desiredHealthy,
      currentHealthy: status.currentHealthy,
    };
  }
  return { kind: 'delete' };
}

/** Pods in Succeeded, Failed or Pending, or already terminating, skip the PDB check (canIgnorePDB). */
export function canIgnorePdb(pod: PodObject): boolean {
  const phase = pod.status?.phase;
  return (
    phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.metadata.deletionTimestamp !== undefined
  );
}

export const isScalable = (object: KubeObject): object is ScalableObject =>
  object.kind === 'ReplicaSet' || object.kind === 'StatefulSet';
