// Server-side printing (meta.k8s.io Table), which kubectl get asks for: the columns of
// pkg/printers/internalversion for the kinds a reconciler operator looks at, name + age otherwise.
import { fromEventsV1 } from './events.js';
import { isPodReady } from './pdb.js';
import type { ResourceDef } from './resources.js';
import { humanDuration } from '@ec2-node-reconciler/model/duration.js';
import { parseTime } from './time.js';
import type { KubeObject, LeaseObject, NodeObject, PdbObject, PodObject } from './types.js';

type Column = { name: string; type: string; format: string; description: string; priority: number };
type Cell = string | number | boolean;

const col = (name: string, type = 'string', priority = 0, format = ''): Column => ({
  name,
  type,
  format,
  description:
    name === 'Name'
      ? 'Name must be unique within a namespace. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names'
      : `${name} column`,
  priority,
});

type Printer = { columns: Column[]; cells: (o: KubeObject, now: number) => Cell[] };

const age = (o: KubeObject, now: number): string => {
  const created = parseTime(o.metadata.creationTimestamp);
  return created === undefined ? '<unknown>' : humanDuration(now - created);
};

const nodePrinter: Printer = {
  columns: [
    col('Name', 'string', 0, 'name'),
    col('Status'),
    col('Roles'),
    col('Age'),
    col('Version'),
    col('Internal-IP', 'string', 1),
    col('External-IP', 'string', 1),
    col('OS-Image', 'string', 1),
    col('Kernel-Version', 'string', 1),
    col('Container-Runtime', 'string', 1),
  ],
  cells: (o, now) => {
    const node = o as NodeObject;
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    const status = [
      ready === undefined
        ? 'Unknown'
        : ready.status === 'True'
          ? 'Ready'
          : ready.status === 'False'
            ? 'NotReady'
            : 'Unknown',
    ];
    if (node.spec?.unschedulable === true) status.push('SchedulingDisabled');
    const roles = Object.keys(node.metadata.labels ?? {})
      .filter((k) => k.startsWith('node-role.kubernetes.io/'))
      .map((k) => k.slice('node-role.kubernetes.io/'.length))
      .concat(node.metadata.labels?.['kubernetes.io/role'] ?? [])
      .filter((r) => r !== '')
      .sort();
    const address = (type: string) => node.status?.addresses?.find((a) => a.type === type)?.address ?? '<none>';
    const info = node.status?.nodeInfo ?? {};
    return [
      node.metadata.name ?? '',
      status.join(','),
      roles.length === 0 ? '<none>' : roles.join(','),
      age(node, now),
      info['kubeletVersion'] ?? '',
      address('InternalIP'),
      address('ExternalIP'),
      info['osImage'] ?? '<unknown>',
      info['kernelVersion'] ?? '<unknown>',
      info['containerRuntimeVersion'] ?? '<unknown>',
    ];
  },
};

const podPrinter: Printer = {
  columns: [
    col('Name', 'string', 0, 'name'),
    col('Ready'),
    col('Status'),
    col('Restarts'),
    col('Age'),
    col('IP', 'string', 1),
    col('Node', 'string', 1),
    col('Nominated Node', 'string', 1),
    col('Readiness Gates', 'string', 1),
  ],
  cells: (o, now) => {
    const pod = o as PodObject;
    const statuses = pod.status?.containerStatuses ?? [];
    const total = pod.spec?.containers?.length ?? statuses.length;
    const ready = statuses.filter((s) => s.ready === true).length;
    const restarts = statuses.reduce((n, s) => n + (s.restartCount ?? 0), 0);
    let reason = pod.status?.reason ?? pod.status?.phase ?? 'Unknown';
    for (const s of statuses) {
      const state = s['state'];
      if (typeof state === 'object' && state !== null && 'waiting' in state) {
        const waiting = (state as { waiting?: { reason?: string } }).waiting;
        if (waiting?.reason !== undefined) reason = waiting.reason;
      }
      if (typeof state === 'object' && state !== null && 'terminated' in state) {
        const terminated = (state as { terminated?: { reason?: string } }).terminated;
        if (terminated?.reason !== undefined) reason = terminated.reason;
      }
    }
    if (pod.metadata.deletionTimestamp !== undefined)
      reason = pod.status?.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
    else if (pod.status?.phase === 'Running' && !isPodReady(pod) && reason === 'Running') reason = 'Running';
    return [
      pod.metadata.name ?? '',
      `${ready}/${total}`,
      reason,
      String(restarts),
      age(pod, now),
      pod.status?.podIP ?? '<none>',
      pod.spec?.nodeName ?? '<none>',
      typeof pod.status?.['nominatedNodeName'] === 'string' ? pod.status['nominatedNodeName'] : '<none>',
      '<none>',
    ];
  },
};

const pdbPrinter: Printer = {
  columns: [
    col('Name', 'string', 0, 'name'),
    col('Min Available'),
    col('Max Unavailable'),
    col('Allowed Disruptions', 'integer'),
    col('Age'),
  ],
  cells: (o, now) => {
    const pdb = o as PdbObject;
    const allowed = pdb.status?.['disruptionsAllowed'];
    return [
      pdb.metadata.name ?? '',
      pdb.spec?.minAvailable === undefined ? 'N/A' : String(pdb.spec.minAvailable),
      pdb.spec?.maxUnavailable === undefined ? 'N/A' : String(pdb.spec.maxUnavailable),
      typeof allowed === 'number' ? allowed : 0,
      age(pdb, now),
    ];
  },
};

const leasePrinter: Printer = {
  columns: [col('Name', 'string', 0, 'name'), col('Holder'), col('Age')],
  cells: (o, now) => [o.metadata.name ?? '', (o as LeaseObject).spec?.holderIdentity ?? '', age(o, now)],
};

const namespacePrinter: Printer = {
  columns: [col('Name', 'string', 0, 'name'), col('Status'), col('Age')],
  cells: (o, now) => {
    const status = o['status'];
    const phase = typeof status === 'object' && status !== null ? (status as { phase?: string }).phase : undefined;
    return [o.metadata.name ?? '', phase ?? '', age(o, now)];
  },
};

const since = (stamp: unknown, now: number): string => {
  const at = typeof stamp === 'string' ? parseTime(stamp) : undefined;
  return at === undefined ? '<unknown>' : humanDuration(now - at);
};
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/**
 * Events (core/v1, the stored shape), as printEvent writes them: the server renders every column
 * (wide), kubectl shows those of priority 0: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE.
 */
const eventPrinter: Printer = {
  columns: [
    col('Last Seen'),
    col('Type'),
    col('Reason'),
    col('Object'),
    col('Subobject', 'string', 1),
    col('Source', 'string', 1),
    col('Message'),
    col('First Seen', 'string', 1),
    col('Count', 'string', 1),
    col('Name', 'string', 1, 'name'),
  ],
  cells: (asked, now) => {
    // Asked through events.k8s.io: printed from the core shape, as the server converts it.
    const o = 'regarding' in asked || 'note' in asked ? fromEventsV1(asked) : asked;
    const first =
      o['firstTimestamp'] !== undefined && o['firstTimestamp'] !== null
        ? since(o['firstTimestamp'], now)
        : since(o['eventTime'], now);
    let last = o['lastTimestamp'] !== undefined && o['lastTimestamp'] !== null ? since(o['lastTimestamp'], now) : first;
    let count = typeof o['count'] === 'number' ? o['count'] : 0;
    const series = record(o['series']);
    if (o['series'] !== undefined && o['series'] !== null) {
      last = since(series['lastObservedTime'], now);
      count = typeof series['count'] === 'number' ? series['count'] : 0;
    } else if (count === 0) count = 1;
    const involved = record(o['involvedObject']);
    const kind = str(involved['kind']).toLowerCase();
    const target = str(involved['name']) === '' ? kind : `${kind}/${str(involved['name'])}`;
    const source = record(o['source']);
    const component = str(source['component']) || str(o['reportingComponent']);
    const instance = str(source['host']) || str(o['reportingInstance']);
    return [
      last,
      str(o['type']),
      str(o['reason']),
      target,
      str(involved['fieldPath']),
      instance === '' ? component : `${component}, ${instance}`,
      str(o['message']).trim(),
      first,
      count,
      o.metadata.name ?? '',
    ];
  },
};

/** RoleBindings and ClusterRoleBindings: NAME, ROLE, AGE, and (wide) the users, groups and service accounts bound. */
const bindingPrinter = (scope: 'roleBinding' | 'clusterRoleBinding'): Printer => ({
  columns: [
    col('Name', 'string', 0, 'name'),
    col('Role'),
    col('Age'),
    { ...col('Users', 'string', 1), description: `Users in the ${scope}` },
    { ...col('Groups', 'string', 1), description: `Groups in the ${scope}` },
    { ...col('ServiceAccounts', 'string', 1), description: `ServiceAccounts in the ${scope}` },
  ],
  cells: (o, now) => {
    const ref = record(o['roleRef']);
    const subjects = Array.isArray(o['subjects']) ? o['subjects'].map(record) : [];
    const of = (kind: string) => subjects.filter((s) => s['kind'] === kind);
    return [
      o.metadata.name ?? '',
      `${str(ref['kind'])}/${str(ref['name'])}`,
      age(o, now),
      of('User')
        .map((s) => str(s['name']))
        .join(', '),
      of('Group')
        .map((s) => str(s['name']))
        .join(', '),
      of('ServiceAccount')
        .map((s) => `${str(s['namespace'])}/${str(s['name'])}`)
        .join(', '),
    ];
  },
});

const defaultPrinter: Printer = {
  columns: [
    col('Name', 'string', 0, 'name'),
    {
      ...col('Created At', 'date'),
      description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
    },
  ],
  cells: (o) => [o.metadata.name ?? '', o.metadata.creationTimestamp ?? ''],
};

const PRINTERS: Record<string, Printer> = {
  nodes: nodePrinter,
  pods: podPrinter,
  poddisruptionbudgets: pdbPrinter,
  leases: leasePrinter,
  namespaces: namespacePrinter,
  events: eventPrinter,
  rolebindings: bindingPrinter('roleBinding'),
  clusterrolebindings: bindingPrinter('clusterRoleBinding'),
};

export type TableOptions = { apiVersion: string; includeObject: 'None' | 'Metadata' | 'Object'; now: number };

/** A Table of `objects`; `listMeta` carries resourceVersion/continue for a list, nothing for a single GET. */
export function toTable(
  def: ResourceDef,
  objects: KubeObject[],
  listMeta: Record<string, unknown>,
  options: TableOptions,
): Record<string, unknown> {
  const printer = PRINTERS[def.storage] ?? defaultPrinter;
  return {
    kind: 'Table',
    apiVersion: options.apiVersion,
    metadata: listMeta,
    columnDefinitions: printer.columns,
    rows: objects.map((o) => ({
      cells: printer.cells(o, options.now),
      object:
        options.includeObject === 'None'
          ? null
          : options.includeObject === 'Object'
            ? o
            : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
    })),
  };
}
