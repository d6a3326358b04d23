// The emulator's state: one collection per resource, the revision every write bumps (the
// resourceVersion), the node index of pods, and the verbs (get, list, create, update, patch, delete,
// evict) with their preconditions and validation. The HTTP layer only parses and authorizes. The
// rules that change objects over time live in the store's parts, each given a narrow StoreCore
// (store-port.ts): node-lifecycle.ts (kubelets, re-registration, pod GC), eviction.ts (graceful
// pod deletion, PodDisruptionBudgets) and seeding.ts (objects from plain seeds).
import { randomUUID } from 'node:crypto';
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import type { LeaseSeed, NodeSeed, PdbSeed, PodSeed, WorkloadSeed } from './builders.js';
import { Collection, keyOf } from './collection.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  MODIFIED,
  notFound,
  StatusError,
  successStatus,
  type StatusBody,
} from './errors.js';
import { Evictions } from './eviction.js';
import { Kubelets, type KubeletOptions } from './kubelet.js';
import { NodeLifecycle } from './node-lifecycle.js';
import { applyPatch, COMMON_MERGE_KEYS, deepEqual, PatchError } from './patch.js';
import type { RbacSource } from './rbac.js';
import { rbacErrors, withRbacDefaults } from './rbac-validation.js';
import {
  apiVersionOf,
  groupResource,
  RBAC_KINDS,
  RESOURCES,
  resourceForStorage,
  type ResourceDef,
} from './resources.js';
import { Seeding, type ClusterSeed } from './seeding.js';
import { EVERYTHING, matches, type FieldRequirement, type Selector } from './selectors.js';
import type { StoreCore } from './store-port.js';
import { formatTime, parseTime } from './time.js';
import { updateManagedFields, type ManagedWrite } from './managed-fields.js';
import {
  isRecord,
  NODE_LEASE_NAMESPACE,
  type KubeObject,
  type LeaseObject,
  type NodeObject,
  type PdbObject,
  type PodObject,
  type ScalableObject,
} from './types.js';

export type StoreOptions = {
  readonly kubelet?: KubeletOptions;
  /** `sequential` uids (`00000000-0000-4000-8000-000000000001`…) make runs reproducible. @default 'random' */
  readonly uids?: 'random' | 'sequential';
  /** How long a pod may stay bound to a missing Node before the pod GC deletes it (kube-controller-manager's 40 s). */
  readonly orphanPodQuarantineMs?: number;
};

export type ListOptions = {
  namespace?: string;
  labelSelector?: Selector;
  fieldSelector?: FieldRequirement[];
  limit?: number;
  continue?: string;
};

export type ListResult<T extends KubeObject = KubeObject> = {
  items: T[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
};

export type Preconditions = { uid?: string; resourceVersion?: string };

export type DeleteOptions = {
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
  dryRun?: boolean;
};

export type WriteOptions = {
  dryRun?: boolean;
  subresource?: string;
  /** Who writes (managed-fields.ts: the request's fieldManager or User-Agent); the emulator's own writes are `sandbox`'s. */
  manager?: string;
};

/** Deleting answers the object (pods, and anything still finalizing) or a Status (the rest). */
export type DeleteResult = { body: KubeObject | StatusBody; removed: boolean };

/**
 * One object as it was stored (storage: `nodes`, `pods`, …), at the clock's time, or removed (`deleted`).
 * `derived`: only what is folded in lazily on read changed (kubelet heartbeats, a PDB's status).
 */
export type StoredChange = {
  readonly storage: string;
  readonly object: KubeObject;
  readonly at: number;
  readonly derived?: true;
  readonly deleted?: true;
};

export const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', NODE_LEASE_NAMESPACE] as const;

const STORAGES = [...new Set(RESOURCES.filter((r) => r.virtual !== true).map((r) => r.storage))];

type ContinueToken = { v: string; rv: number; start: string };

const NO_PODS: ReadonlySet<string> = new Set();

export class KubeStore {
  readonly kubelets: Kubelets;
  private revision = 1;
  private uidCounter = 0;
  private readonly collections = new Map<string, Collection>();
  /** Pods by spec.nodeName: drain lists one node's pods out of 200,000. */
  private readonly podsByNode = new Map<string, Set<string>>();
  private readonly uidMode: 'random' | 'sequential';
  /** The revision of each collection's last change: the RBAC authorizer re-reads roles only when they changed. */
  private readonly changedAt = new Map<string, number>();
  private readonly nodeLifecycle: NodeLifecycle;
  private readonly evictions: Evictions;
  private readonly seeding: Seeding;
  /** Told of every object stored (written or seeded), as it is stored: how a measurement sees when things changed. */
  private readonly observers = new Set<(change: StoredChange) => void>();

  constructor(
    readonly clock: Clock,
    options: StoreOptions = {},
  ) {
    const quarantineMs = options.orphanPodQuarantineMs ?? 40_000;
    this.uidMode = options.uids ?? 'random';
    this.kubelets = new Kubelets(clock, options.kubelet);
    for (const storage of STORAGES) this.collections.set(storage, new Collection());
    const core = this.core();
    this.nodeLifecycle = new NodeLifecycle(core, this.kubelets, quarantineMs);
    this.evictions = new Evictions(core, this.kubelets);
    this.seeding = new Seeding(core, this.kubelets);
    for (const ns of DEFAULT_NAMESPACES) this.ensureNamespace(ns);
  }

  // ---------- plumbing ----------

  /** The store as its parts see it: reads as stored or as now, and writes that keep the indexes. */
  private core(): StoreCore {
    return {
      clock: this.clock,
      newUid: () => this.newUid(),
      buildContext: () => ({ now: this.clock.now(), uid: () => this.newUid() }),
      stored: (storage, key) => this.coll(storage).get(key),
      current: (storage, key) => this.current(storage, key),
      keys: (storage, prefix) => this.coll(storage).keysFrom('', prefix),
      podsOn: (nodeName) => this.podsByNode.get(nodeName) ?? NO_PODS,
      put: (storage, object) => this.put(storage, object),
      drop: (storage, object) => this.drop(storage, object),
      create: (def, object) => this.create(def, object),
    };
  }

  private coll(storage: string): Collection {
    const c = this.collections.get(storage);
    if (c === undefined) throw new Error(`unknown storage ${storage}`);
    return c;
  }

  newUid(): string {
    if (this.uidMode === 'random') return randomUUID();
    this.uidCounter++;
    return `00000000-0000-4000-8000-${this.uidCounter.toString(16).padStart(12, '0')}`;
  }

  get resourceVersion(): string {
    return String(this.revision);
  }

  /** Stores `object` as the next revision and keeps the indexes in step. */
  private put<T extends KubeObject>(storage: string, object: T, derived = false): T {
    this.revision++;
    const stored = { ...object, metadata: { ...object.metadata, resourceVersion: String(this.revision) } };
    const key = keyOf(stored.metadata.namespace, stored.metadata.name ?? '');
    const coll = this.coll(storage);
    if (storage === 'pods') {
      const oldNode = podNode(coll.get(key));
      const newNode = (stored as PodObject).spec?.nodeName;
      if (oldNode !== newNode) {
        if (oldNode !== undefined) this.podsByNode.get(oldNode)?.delete(key);
        if (newNode !== undefined) {
          let set = this.podsByNode.get(newNode);
          if (set === undefined) this.podsByNode.set(newNode, (set = new Set()));
          set.add(key);
        }
      }
    }
    coll.set(key, stored);
    this.changedAt.set(storage, this.revision);
    const change: StoredChange = {
      storage,
      object: stored,
      at: this.clock.now(),
      ...(derived ? { derived: true as const } : {}),
    };
    for (const observer of this.observers) observer(change);
    return stored;
  }

  /** Calls `observer` with every object stored from now on; returns a function that stops it. */
  observe(observer: (change: StoredChange) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  private drop(storage: string, object: KubeObject): void {
    const key = keyOf(object.metadata.namespace, object.metadata.name ?? '');
    const coll = this.coll(storage);
    if (!coll.delete(key)) return;
    this.revision++;
    this.changedAt.set(storage, this.revision);
    for (const observer of this.observers) observer({ storage, object, at: this.clock.now(), deleted: true });
    if (storage === 'pods') {
      const node = (object as PodObject).spec?.nodeName;
      if (node !== undefined) this.podsByNode.get(node)?.delete(key);
      this.evictions.onPodRemoved(key);
    }
    this.nodeLifecycle.afterRemoved(storage, object);
  }

  /**
   * Brings time-driven state up to now: kubelets re-register deleted Nodes, pods whose grace period
   * ran out on a live kubelet vanish, the pod GC removes pods of Nodes gone for 40 s.
   */
  catchUp(): void {
    const now = this.clock.now();
    this.nodeLifecycle.catchUpKubelets();
    this.evictions.finishGracePeriods(now);
    this.nodeLifecycle.collectOrphanPods(now);
  }

  /** The object as it is now: kubelet heartbeats and PDB status are folded in lazily on read. */
  private current(storage: string, key: string): KubeObject | undefined {
    const object = this.coll(storage).get(key);
    if (object === undefined) return undefined;
    return this.refresh(storage, object);
  }

  private refresh(storage: string, object: KubeObject): KubeObject {
    const fresh =
      storage === 'poddisruptionbudgets'
        ? this.evictions.withPdbStatus(object)
        : this.nodeLifecycle.refresh(storage, object);
    return fresh === object ? object : this.put(storage, fresh, true);
  }

  private ensureNamespace(name: string): void {
    if (this.coll('namespaces').has(name)) return;
    this.put('namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name,
        uid: this.newUid(),
        creationTimestamp: formatTime(this.clock.now()),
        labels: { 'kubernetes.io/metadata.name': name },
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  }

  // ---------- reads ----------

  get(def: ResourceDef, namespace: string | undefined, name: string): KubeObject {
    this.catchUp();
    const object = this.current(def.storage, keyOf(def.namespaced ? namespace : undefined, name));
    if (object === undefined) throw notFound(groupResource(def), name);
    return object;
  }

  /** Like `get` without the 404: for tests and the sandbox. */
  find(def: ResourceDef, namespace: string | undefined, name: string): KubeObject | undefined {
    this.catchUp();
    return this.current(def.storage, keyOf(def.namespaced ? namespace : undefined, name));
  }

  list(def: ResourceDef, options: ListOptions = {}): ListResult {
    this.catchUp();
    const coll = this.coll(def.storage);
    const label = options.labelSelector ?? EVERYTHING;
    const fields = options.fieldSelector ?? [];
    const getters = fields.map((f) => {
      const getter = fieldGetter(def, f.field);
      if (getter === undefined) throw badRequest(`field label not supported: ${f.field}`);
      return { getter, f };
    });
    const filtered = label.requirements.length > 0 || fields.length > 0;
    const prefix =
      def.namespaced && options.namespace !== undefined && options.namespace !== '' ? `${options.namespace}/` : '';
    let start = '';
    if (options.continue !== undefined && options.continue !== '') start = this.decodeContinue(options.continue);
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : Infinity;

    // Drain asks for one node's pods out of all of them: walk the node index, not the whole list.
    const byNode = def.storage === 'pods' ? fields.find((f) => f.field === 'spec.nodeName' && f.equal) : undefined;
    const keys: Iterable<string> =
      byNode === undefined
        ? coll.keysFrom(start, prefix)
        : [...(this.podsByNode.get(byNode.value) ?? [])].filter((k) => k >= start && k.startsWith(prefix)).sort();

    const items: KubeObject[] = [];
    let lastKey: string | undefined;
    let more = false;
    for (const key of keys) {
      if (items.length >= limit) {
        more = true;
        break;
      }
      const raw = coll.get(key);
      if (raw === undefined) continue;
      lastKey = key;
      if (label.requirements.length > 0 && !matches(label, raw.metadata.labels)) continue;
      if (!getters.every(({ getter, f }) => (getter(raw) === f.value) === f.equal)) continue;
      items.push(this.refresh(def.storage, raw));
    }
    const result: ListResult = { items, resourceVersion: String(this.revision) };
    if (more && lastKey !== undefined) {
      const next = `${lastKey}\u0000`;
      result.continue = Buffer.from(
        JSON.stringify({ v: 'meta.k8s.io/v1', rv: this.revision, start: next } satisfies ContinueToken),
      ).toString('base64');
      if (!filtered && byNode === undefined) result.remainingItemCount = coll.countFrom(next, prefix);
    }
    return result;
  }

  private decodeContinue(token: string): string {
    try {
      const parsed: unknown = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
      if (
        isRecord(parsed) &&
        parsed['v'] === 'meta.k8s.io/v1' &&
        typeof parsed['start'] === 'string' &&
        typeof parsed['rv'] === 'number'
      ) {
        return parsed['start'];
      }
    } catch {
      // fall through to the error the real server gives
    }
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }

  // ---------- writes ----------

  create(
    def: ResourceDef,
    input: KubeObject,
    options: WriteOptions & { namespace?: string; requireNamespace?: boolean } = {},
  ): KubeObject {
    this.catchUp();
    const meta = input.metadata;
    const namespace = def.namespaced ? (meta.namespace ?? options.namespace ?? 'default') : undefined;
    if (
      def.namespaced &&
      options.namespace !== undefined &&
      meta.namespace !== undefined &&
      meta.namespace !== options.namespace
    ) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    let name = meta.name;
    if ((name === undefined || name === '') && meta.generateName !== undefined)
      name = `${meta.generateName}${randomSuffix()}`;
    if (name === undefined || name === '') {
      throw invalid(def.kind, def.group, '', [
        { field: 'metadata.name', type: 'Required value', detail: 'name or generateName is required' },
      ]);
    }
    const key = keyOf(namespace, name);
    if (this.coll(def.storage).has(key)) throw alreadyExists(groupResource(def), name);
    if (namespace !== undefined) {
      if (options.requireNamespace === true && !this.coll('namespaces').has(namespace))
        throw notFound({ group: '', resource: 'namespaces' }, namespace);
      this.ensureNamespace(namespace);
    }
    const object: KubeObject = {
      ...withRbacDefaults(def, input),
      apiVersion: apiVersionOf(def),
      kind: def.kind,
      metadata: {
        ...meta,
        name,
        ...(namespace === undefined ? {} : { namespace }),
        uid: meta.uid ?? this.newUid(),
        creationTimestamp: meta.creationTimestamp ?? formatTime(this.clock.now()),
        ...(def.generation ? { generation: 1 } : {}),
      },
    };
    delete object.metadata.resourceVersion;
    delete object.metadata.deletionTimestamp;
    delete object.metadata.deletionGracePeriodSeconds;
    delete object.metadata['managedFields'];
    // Seeds come without a manager: a seeded object has the managed fields its seed gives, if any.
    if (options.manager !== undefined)
      object.metadata['managedFields'] = updateManagedFields(undefined, object, this.managedWrite(def, options));
    else if (input.metadata['managedFields'] !== undefined)
      object.metadata['managedFields'] = input.metadata['managedFields'];
    this.validate(def, object, undefined);
    if (options.dryRun === true)
      return { ...object, metadata: { ...object.metadata, resourceVersion: String(this.revision) } };
    return this.put(def.storage, object);
  }

  /** PUT: optimistic concurrency on metadata.resourceVersion; status only through `/status`. */
  update(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    input: KubeObject,
    options: WriteOptions = {},
  ): KubeObject {
    this.catchUp();
    const key = keyOf(def.namespaced ? namespace : undefined, name);
    const old = this.current(def.storage, key);
    if (old === undefined) throw notFound(groupResource(def), name);
    if (input.metadata.name !== undefined && input.metadata.name !== name) {
      throw badRequest(`the name of the object (${input.metadata.name}) does not match the name on the URL (${name})`);
    }
    return this.write(def, old, input, options);
  }

  /** PATCH: applies the patch to the current object, then the same checks as an update. */
  patch(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    contentType: string,
    body: unknown,
    options: WriteOptions = {},
  ): KubeObject {
    this.catchUp();
    const key = keyOf(def.namespaced ? namespace : undefined, name);
    const old = this.current(def.storage, key);
    if (old === undefined) throw notFound(groupResource(def), name);
    let patched: unknown;
    try {
      patched = applyPatch(old, contentType, body, COMMON_MERGE_KEYS);
    } catch (error) {
      if (!(error instanceof PatchError)) throw error;
      if (error.code === 400) throw badRequest(error.message);
      // The real server answers a failed JSON-patch operation with this generic 422; the cause names the path.
      throw new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: error.message,
            ...(error.path === undefined ? {} : { field: error.path }),
          },
        ],
      });
    }
    if (!isRecord(patched) || !isRecord(patched['metadata'])) throw badRequest('the patch removed the object metadata');
    return this.write(def, old, patched as KubeObject, options);
  }

  private write(def: ResourceDef, old: KubeObject, input: KubeObject, options: WriteOptions): KubeObject {
    const name = old.metadata.name ?? '';
    const gr = groupResource(def);
    const rv = input.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion) throw conflict(gr, name, MODIFIED);
    const uid = input.metadata.uid;
    if (uid !== undefined && uid !== '' && uid !== old.metadata.uid) {
      throw conflict(
        gr,
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${old.metadata.uid ?? ''}`,
      );
    }
    const sub = options.subresource;
    let next: KubeObject;
    if (sub === 'status') {
      // Through /status only the status changes (nodeStatusStrategy.PrepareForUpdate keeps the rest).
      next = { ...old, status: input['status'] };
    } else {
      next = {
        ...withRbacDefaults(def, input),
        apiVersion: apiVersionOf(def),
        kind: def.kind,
        metadata: { ...input.metadata, ...immutableMeta(old) },
      };
      if (def.statusSubresource) {
        if (old['status'] === undefined) delete next['status'];
        else next['status'] = old['status'];
      }
      if (def.generation && !deepEqual(stripMeta(old), stripMeta(next)))
        next.metadata.generation = (old.metadata.generation ?? 1) + 1;
    }
    next.metadata = {
      ...next.metadata,
      managedFields: updateManagedFields(old, next, this.managedWrite(def, options)),
    };
    if (next.metadata['managedFields'] !== undefined && (next.metadata['managedFields'] as unknown[]).length === 0)
      delete next.metadata['managedFields'];
    this.validate(def, next, old);
    if (deepEqual(next, old)) return old;
    if (options.dryRun === true) return next;
    const stored = this.put(def.storage, next);
    // An object whose last finalizer went away while it was being deleted is gone now.
    if (
      stored.metadata.deletionTimestamp !== undefined &&
      (stored.metadata.finalizers?.length ?? 0) === 0 &&
      def.storage !== 'pods'
    ) {
      this.drop(def.storage, stored);
    }
    return stored;
  }

  private managedWrite(def: ResourceDef, options: WriteOptions): ManagedWrite {
    return {
      manager: options.manager ?? 'sandbox',
      apiVersion: apiVersionOf(def),
      at: formatTime(this.clock.now()),
      ...(options.subresource !== undefined && options.subresource !== '' ? { subresource: options.subresource } : {}),
    };
  }

  private validate(def: ResourceDef, next: KubeObject, old: KubeObject | undefined): void {
    const errors: { field: string; type: string; detail: string }[] = [];
    const name = next.metadata.name ?? '';
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) || name.length > 253) {
      errors.push({
        field: 'metadata.name',
        type: 'Invalid value',
        detail: `"${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
      });
    }
    for (const [field, map] of [
      ['metadata.labels', next.metadata.labels],
      ['metadata.annotations', next.metadata.annotations],
    ] as const) {
      if (map === undefined) continue;
      if (!isRecord(map)) errors.push({ field, type: 'Invalid value', detail: 'must be a map of strings' });
      else
        for (const [k, v] of Object.entries(map))
          if (typeof v !== 'string')
            errors.push({ field: `${field}[${k}]`, type: 'Invalid value', detail: 'must be a string' });
    }
    if (def.storage === 'nodes') {
      const spec = (next as NodeObject).spec;
      const oldId = old === undefined ? undefined : (old as NodeObject).spec?.providerID;
      if (old !== undefined && oldId !== undefined && oldId !== '' && spec?.providerID !== oldId) {
        errors.push({
          field: 'spec.providerID',
          type: 'Forbidden',
          detail: 'node updates may not change providerID except from "" to valid',
        });
      }
      if (spec?.unschedulable !== undefined && typeof spec.unschedulable !== 'boolean') {
        errors.push({ field: 'spec.unschedulable', type: 'Invalid value', detail: 'must be a boolean' });
      }
      if (spec?.taints !== undefined) {
        if (!Array.isArray(spec.taints))
          errors.push({ field: 'spec.taints', type: 'Invalid value', detail: 'must be a list' });
        else
          spec.taints.forEach((t, i) => {
            if (!isRecord(t) || typeof t.key !== 'string' || t.key === '')
              errors.push({ field: `spec.taints[${i}].key`, type: 'Required value', detail: 'key is required' });
            else if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(String(t.effect))) {
              errors.push({
                field: `spec.taints[${i}].effect`,
                type: 'Unsupported value',
                detail: `"${String(t.effect)}": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
              });
            }
          });
      }
    }
    if (def.storage === 'pods' && old !== undefined) {
      const oldNode = (old as PodObject).spec?.nodeName;
      if (oldNode !== undefined && (next as PodObject).spec?.nodeName !== oldNode) {
        errors.push({
          field: 'spec',
          type: 'Forbidden',
          detail:
            'pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
        });
      }
    }
    errors.push(...rbacErrors(def, next, old));
    if (errors.length > 0) throw invalid(def.kind, def.group, name, errors);
  }

  delete(def: ResourceDef, namespace: string | undefined, name: string, options: DeleteOptions = {}): DeleteResult {
    this.catchUp();
    const gr = groupResource(def);
    const key = keyOf(def.namespaced ? namespace : undefined, name);
    const object = this.current(def.storage, key);
    if (object === undefined) throw notFound(gr, name);
    checkPreconditions(def, object, options.preconditions);
    if (def.storage === 'pods')
      return this.evictions.deletePod(object, options.gracePeriodSeconds, options.dryRun === true);
    if ((object.metadata.finalizers?.length ?? 0) > 0) {
      if (object.metadata.deletionTimestamp !== undefined || options.dryRun === true)
        return { body: object, removed: false };
      const marked = this.put(def.storage, {
        ...object,
        metadata: {
          ...object.metadata,
          deletionTimestamp: formatTime(this.clock.now()),
          deletionGracePeriodSeconds: 0,
        },
      });
      return { body: marked, removed: false };
    }
    if (options.dryRun !== true) this.drop(def.storage, object);
    return {
      body: successStatus(200, {
        name,
        ...(def.group === '' ? {} : { group: def.group }),
        kind: def.plural,
        uid: object.metadata.uid ?? '',
      }),
      removed: true,
    };
  }

  /** POST pods/<name>/eviction, with the rules of eviction.go. Returns the 201 Status. */
  evict(namespace: string, name: string, deleteOptions: DeleteOptions = {}): StatusBody {
    this.catchUp();
    const pod = this.current('pods', keyOf(namespace, name));
    if (pod === undefined) throw notFound({ group: '', resource: 'pods' }, name);
    this.evictions.admit(pod);
    checkPreconditions(resourceForStorage('pods'), pod, deleteOptions.preconditions);
    this.evictions.deletePod(pod, deleteOptions.gracePeriodSeconds, deleteOptions.dryRun === true);
    return successStatus(201);
  }

  /** The revision of the last change to a collection (0: never changed): whoever keeps a derived view knows when it is stale. */
  changedRevision(storage: string): number {
    return this.changedAt.get(storage) ?? 0;
  }

  /**
   * The served RBAC objects, for the authorizer: read as stored (they have no time-driven state),
   * with a version that changes whenever one of them does.
   */
  rbacSource(): RbacSource {
    const storages = RBAC_KINDS.map(([plural]) => plural);
    return {
      version: () => storages.reduce((sum, storage) => sum + (this.changedAt.get(storage) ?? 0), 0),
      objects: () =>
        storages.flatMap((storage) =>
          [...this.coll(storage).keysFrom('', '')].flatMap((key) => this.coll(storage).get(key) ?? []),
        ),
    };
  }

  // ---------- typed reads (tests, sandbox) ----------

  /** The definition of a served resource: `resource('nodes')`, `resource('leases', 'coordination.k8s.io')`. */
  resource(plural: string, group?: string): ResourceDef {
    const def = RESOURCES.find(
      (r) => r.plural === plural && (group === undefined || r.group === group) && r.virtual !== true,
    );
    if (def === undefined) throw new Error(`not a served resource: ${plural}`);
    return def;
  }

  getNode(name: string): NodeObject | undefined {
    return this.find(this.resource('nodes'), undefined, name);
  }

  getPod(namespace: string, name: string): PodObject | undefined {
    return this.find(this.resource('pods'), namespace, name);
  }

  /** The node's Lease in kube-node-lease, renewTime as its kubelet has renewed it by now. */
  getLease(nodeName: string): LeaseObject | undefined {
    return this.find(this.resource('leases'), NODE_LEASE_NAMESPACE, nodeName);
  }

  /**
   * What a read would serve now of a Node's Ready lastHeartbeatTime or a node Lease's renewTime (epoch
   * ms; undefined when it has none), with the object's resourceVersion as stored: worked out from its
   * kubelet's grid with nothing folded in (no write, no new resourceVersion). For a reader that looks at
   * every heartbeat at every tick and at nothing else of the objects (the replay's sweep planner).
   * Undefined when there is no such object. Call catchUp first, as a read does.
   */
  heartbeatOf(
    kind: 'node' | 'lease',
    name: string,
  ): { readonly at: number | undefined; readonly resourceVersion: string } | undefined {
    const object =
      kind === 'node'
        ? this.coll('nodes').get(keyOf(undefined, name))
        : this.coll('leases').get(keyOf(NODE_LEASE_NAMESPACE, name));
    if (object === undefined) return undefined;
    const resourceVersion = object.metadata.resourceVersion ?? '';
    if (kind === 'lease') {
      const held = this.heldTime(object, () => parseTime((object as LeaseObject).spec?.renewTime));
      return { at: this.kubelets.leaseRenewedAt(name, held), resourceVersion };
    }
    const ready = (object as NodeObject).status?.conditions?.find((c) => c.type === 'Ready');
    if (ready === undefined) return { at: undefined, resourceVersion };
    const held = this.heldTime(object, () => parseTime(ready.lastHeartbeatTime));
    return { at: this.kubelets.statusPostedAt(name, held), resourceVersion };
  }

  /** A stored object's heartbeat time, parsed once: a write stores a new object, never changes one. */
  private heldTime(object: KubeObject, parse: () => number | undefined): number | undefined {
    if (this.heldTimes.has(object)) return this.heldTimes.get(object);
    const held = parse();
    this.heldTimes.set(object, held);
    return held;
  }

  private readonly heldTimes = new WeakMap<KubeObject, number | undefined>();

  getPdb(namespace: string, name: string): PdbObject | undefined {
    return this.find(this.resource('poddisruptionbudgets'), namespace, name);
  }

  listNodes(): NodeObject[] {
    return this.list(this.resource('nodes')).items;
  }

  /** Pods, optionally only those bound to `node` and/or in `namespace`. */
  listPods(filter: { node?: string; namespace?: string } = {}): PodObject[] {
    return this.list(this.resource('pods'), {
      ...(filter.namespace === undefined ? {} : { namespace: filter.namespace }),
      ...(filter.node === undefined
        ? {}
        : { fieldSelector: [{ field: 'spec.nodeName', value: filter.node, equal: true }] }),
    }).items;
  }

  // ---------- seeding (tests, sandbox): seeding.ts ----------

  seedCluster(seed: ClusterSeed): void {
    this.seeding.seedCluster(seed);
  }

  /** Seeds any object as given (kind decides the resource); fills uid, creationTimestamp. */
  seed<T extends KubeObject>(object: T): T {
    return this.seeding.seed(object);
  }

  seedNode(seed: NodeSeed): NodeObject {
    return this.seeding.seedNode(seed);
  }

  seedLease(seed: LeaseSeed): LeaseObject {
    return this.seeding.seedLease(seed);
  }

  /** Seeds a pod, and its controller when missing (one replica per seeded pod). */
  seedPod(seed: PodSeed): PodObject {
    return this.seeding.seedPod(seed);
  }

  seedPdb(seed: PdbSeed): PdbObject {
    return this.seeding.seedPdb(seed);
  }

  seedDaemonSet(seed: WorkloadSeed): ScalableObject {
    return this.seeding.seedWorkload('DaemonSet', seed);
  }

  seedReplicaSet(seed: WorkloadSeed): ScalableObject {
    return this.seeding.seedWorkload('ReplicaSet', seed);
  }

  seedStatefulSet(seed: WorkloadSeed): ScalableObject {
    return this.seeding.seedWorkload('StatefulSet', seed);
  }
}

function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  for (let i = 0; i < 5; i++) out += alphabet[Math.floor(Math.random() * alphabet.length)] ?? 'x';
  return out;
}

const podNode = (pod: KubeObject | undefined): string | undefined =>
  pod === undefined ? undefined : (pod as PodObject).spec?.nodeName;

function checkPreconditions(def: ResourceDef, object: KubeObject, pre: Preconditions | undefined): void {
  const name = object.metadata.name ?? '';
  if (pre?.uid !== undefined && pre.uid !== object.metadata.uid) {
    throw conflict(
      groupResource(def),
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${object.metadata.uid ?? ''}`,
    );
  }
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== object.metadata.resourceVersion) {
    throw conflict(
      groupResource(def),
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${object.metadata.resourceVersion ?? ''}`,
    );
  }
}

/** Fields a client can never change by update or patch. */
function immutableMeta(old: KubeObject): Partial<KubeObject['metadata']> {
  const m = old.metadata;
  return {
    name: m.name,
    ...(m.namespace === undefined ? {} : { namespace: m.namespace }),
    uid: m.uid,
    creationTimestamp: m.creationTimestamp,
    resourceVersion: m.resourceVersion,
    ...(m.generation === undefined ? {} : { generation: m.generation }),
    ...(m.deletionTimestamp === undefined ? {} : { deletionTimestamp: m.deletionTimestamp }),
    ...(m.deletionGracePeriodSeconds === undefined ? {} : { deletionGracePeriodSeconds: m.deletionGracePeriodSeconds }),
  };
}

/** The parts of an object whose change bumps metadata.generation (everything but metadata and status). */
function stripMeta(object: KubeObject): unknown {
  const { metadata: _m, status: _s, ...rest } = object;
  return rest;
}

function fieldGetter(def: ResourceDef, field: string): ((o: KubeObject) => string) | undefined {
  if (field === 'metadata.name') return (o) => o.metadata.name ?? '';
  if (field === 'metadata.namespace' && def.namespaced) return (o) => o.metadata.namespace ?? '';
  return def.fields[field];
}
