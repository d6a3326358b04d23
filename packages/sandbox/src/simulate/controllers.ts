// The workload controllers, as far as a drain meets them: a ReplicaSet replaces an evicted pod at
// once on another node, a StatefulSet once the old pod is gone (same name). The Kubernetes
// emulator knowingly runs no controllers; without this stand-in a PodDisruptionBudget that allows
// one disruption at a time could never let a second pod go, which no real cluster does.
// Replacements start Ready on the schedulable, Ready, untainted node with the fewest pods.
import type { KubeStore, NodeObject, PodObject } from '../kube/index.js';
import { controllerOf, MIRROR_POD_ANNOTATION } from '../kube/index.js';

interface Workload {
  readonly kind: 'ReplicaSet' | 'StatefulSet';
  readonly template: PodObject;
  /** Pod names as seeded (a StatefulSet's identities). */
  readonly names: readonly string[];
}

const isTerminal = (pod: PodObject) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

export class WorkloadControllers {
  private readonly workloads = new Map<string, Workload>();
  private created = 0;
  /**
   * The pods' revision when a reconcile last left every workload whole: until a pod changes, the
   * next one would create nothing. The driver reconciles at every clock move, and a replay moves it
   * thousands of times over 20,000 pods.
   */
  private wholeAt: number | undefined;

  /** Takes each ReplicaSet's and StatefulSet's desired pods from what the store holds now (after seeding). */
  constructor(private readonly store: KubeStore) {
    for (const pod of store.listPods()) {
      const owner = controllerOf(pod);
      if (
        (owner?.kind !== 'ReplicaSet' && owner?.kind !== 'StatefulSet') ||
        isTerminal(pod) ||
        pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined
      )
        continue;
      const known = this.workloads.get(owner.uid);
      if (known) (known.names as string[]).push(pod.metadata.name ?? '');
      else
        this.workloads.set(owner.uid, {
          kind: owner.kind,
          template: structuredClone(pod),
          names: [pod.metadata.name ?? ''],
        });
    }
  }

  /** Creates the replacements that are due now. */
  reconcile(): void {
    if (this.workloads.size === 0) return;
    // What a list does first (grace periods ending, the pod GC): pods it removes count as changes.
    this.store.catchUp();
    if (this.wholeAt !== undefined && this.wholeAt === this.store.changedRevision('pods')) return;
    this.wholeAt = undefined;
    const pods = this.store.listPods();
    const byOwner = new Map<string, PodObject[]>();
    for (const pod of pods) {
      const uid = controllerOf(pod)?.uid;
      if (uid === undefined || !this.workloads.has(uid)) continue;
      const owned = byOwner.get(uid);
      if (owned) owned.push(pod);
      else byOwner.set(uid, [pod]);
    }
    let nodes: { name: string; pods: number }[] | undefined;
    const place = (): string | undefined => {
      nodes ??= this.candidateNodes(pods);
      const target = nodes.sort((a, b) => a.pods - b.pods || a.name.localeCompare(b.name))[0];
      if (target) target.pods += 1;
      return target?.name;
    };
    for (const [uid, workload] of this.workloads) {
      const current = byOwner.get(uid) ?? [];
      if (workload.kind === 'ReplicaSet') {
        const active = current.filter((p) => p.metadata.deletionTimestamp === undefined && !isTerminal(p)).length;
        for (let i = active; i < workload.names.length; i++) {
          const node = place();
          if (node === undefined) return;
          this.create(
            workload.template,
            `${controllerOf(workload.template)?.name ?? 'pod'}-r${String(++this.created).padStart(4, '0')}`,
            node,
          );
        }
      } else {
        const present = new Set(current.map((p) => p.metadata.name));
        for (const name of workload.names) {
          if (present.has(name)) continue;
          const node = place();
          if (node === undefined) return;
          this.create(workload.template, name, node);
        }
      }
    }
    // Reached only with every replacement placed (a workload left short returns above, and is tried again).
    this.wholeAt = this.store.changedRevision('pods');
  }

  private candidateNodes(pods: readonly PodObject[]): { name: string; pods: number }[] {
    const counts = new Map<string, number>();
    for (const pod of pods)
      if (pod.spec?.nodeName) counts.set(pod.spec.nodeName, (counts.get(pod.spec.nodeName) ?? 0) + 1);
    const usable = (node: NodeObject) =>
      node.spec?.unschedulable !== true &&
      !(node.spec?.taints ?? []).some((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute') &&
      node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true &&
      this.store.kubelets.isHeartbeating(node.metadata.name ?? '');
    return this.store
      .listNodes()
      .filter(usable)
      .map((n) => ({ name: n.metadata.name ?? '', pods: counts.get(n.metadata.name ?? '') ?? 0 }));
  }

  private create(template: PodObject, name: string, node: string): void {
    const {
      uid: _uid,
      resourceVersion: _rv,
      creationTimestamp: _ct,
      deletionTimestamp: _dt,
      deletionGracePeriodSeconds: _dg,
      ...metadata
    } = template.metadata;
    const startTime = new Date(this.store.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    this.store.seed<PodObject>({
      ...template,
      metadata: { ...metadata, name },
      spec: { ...template.spec, nodeName: node },
      status: {
        ...template.status,
        phase: 'Running',
        startTime,
        conditions: (template.status?.conditions ?? []).map((c) => ({
          ...c,
          status: 'True',
          lastTransitionTime: startTime,
        })),
      },
    });
  }
}
