// Scenario → the seeds of both emulators (pure). Ages are relative to the scenario's start.
import {
  instanceIdOfNodeName,
  MalformedProviderIdError,
  parseProviderId,
  regionOfZone,
} from '@ec2-node-reconciler/model/provider-id.js';
import {
  CORDONED_BY_ANNOTATION,
  CORDONED_BY_OPERATOR_VALUE,
  CORDONED_BY_VALUE,
  FIELD_MANAGER,
} from '@ec2-node-reconciler/model/contract/labels.js';
import type { SeedInstance } from '../aws/index.js';
import type { NodeSeed, PdbSeed, PodSeed } from '../kube/index.js';
import { hookKey, type HookDefinition } from '../scenario/hooks.js';
import type { Scenario, ScenarioNode } from '../scenario/schema.js';

const LIVE_STATES = new Set(['pending', 'running']);

/** The scenario's instances by id and by private DNS name, built once per scenario: seeding stays linear. */
interface InstanceIndex {
  readonly byId: ReadonlyMap<string, Scenario['instances'][number]>;
  readonly byDnsName: ReadonlyMap<string, Scenario['instances'][number]>;
}
const indexes = new WeakMap<Scenario, InstanceIndex>();

function indexOf(scenario: Scenario): InstanceIndex {
  let index = indexes.get(scenario);
  if (index === undefined) {
    const byId = new Map<string, Scenario['instances'][number]>();
    const byDnsName = new Map<string, Scenario['instances'][number]>();
    for (const instance of scenario.instances) {
      byId.set(instance.id, instance);
      // The first instance of a name wins, as a scan of the list in order would find it.
      const name = instance.privateDnsName ?? '';
      if (!byDnsName.has(name)) byDnsName.set(name, instance);
    }
    index = { byId, byDnsName };
    indexes.set(scenario, index);
  }
  return index;
}

function instanceStateOf(scenario: Scenario, node: ScenarioNode): string | undefined {
  if (node.providerID) {
    try {
      const ref = parseProviderId(node.providerID);
      if (ref.kind !== 'ec2') return 'running';
      return indexOf(scenario).byId.get(ref.instanceId)?.state ?? 'absent';
    } catch (error) {
      if (error instanceof MalformedProviderIdError) return undefined;
      throw error;
    }
  }
  return indexOf(scenario).byDnsName.get(node.name)?.state;
}

/** The format's rule: a node's kubelet heartbeats by default exactly when its machine is pending or running. */
export function isHeartbeating(scenario: Scenario, node: ScenarioNode): boolean {
  return node.heartbeating ?? LIVE_STATES.has(instanceStateOf(scenario, node) ?? 'absent');
}

/**
 * The zone of a node's machine, which the cloud provider labels it with (topology.kubernetes.io/zone):
 * its providerID's (an instance's, or a Fargate pod's), else its machine's by name (an instance-id
 * hostname, a private DNS name); undefined when no machine is known (a malformed or hybrid providerID,
 * a name no machine answers to), and the Node then carries no zone label.
 */
function zoneOfNode(scenario: Scenario, node: ScenarioNode): string | undefined {
  if (node.providerID) {
    try {
      const ref = parseProviderId(node.providerID);
      if (ref.kind === 'ec2') return ref.zone;
      const fargateZone = ref.platform === 'fargate' ? /^aws:\/\/\/([^/]+)\//.exec(ref.raw)?.[1] : undefined;
      return fargateZone !== undefined && regionOfZone(fargateZone) !== undefined ? fargateZone : undefined;
    } catch (error) {
      if (error instanceof MalformedProviderIdError) return undefined;
      throw error;
    }
  }
  const { byId, byDnsName } = indexOf(scenario);
  const id = instanceIdOfNodeName(node.name);
  return (id === undefined ? undefined : byId.get(id)?.zone) ?? byDnsName.get(node.name)?.zone;
}

export function nodeSeed(scenario: Scenario, node: ScenarioNode, start: number): NodeSeed {
  const zone = zoneOfNode(scenario, node);
  const createdAt = start - node.createdAgo;
  const lastHeartbeat = node.heartbeatAgo === 'none' ? null : start - node.heartbeatAgo;
  const { Ready: readyCondition, ...agent } = node.conditions;
  const ready = readyCondition?.status ?? node.ready ?? 'True';
  // The format's rule: a Ready that is not True turned so when the kubelet went quiet (heartbeatAgo).
  const readySince =
    readyCondition !== undefined
      ? start - readyCondition.since
      : ready !== 'True'
        ? (lastHeartbeat ?? createdAt)
        : createdAt;
  return {
    name: node.name,
    ...(node.providerID ? { providerID: node.providerID } : {}),
    zone: zone ?? null,
    createdAt,
    ready,
    readySince,
    conditions: Object.entries(agent).map(([type, c]) => ({ type, status: c.status, since: start - c.since })),
    lastHeartbeat,
    // Without a Lease the Ready condition is the only heartbeat; it is as old as the node.
    readyHeartbeat: lastHeartbeat ?? createdAt,
    heartbeating: isHeartbeating(scenario, node),
    unschedulable: node.unschedulable,
    ...(node.unschedulable ? { cordonedBy: cordonWriter(node.annotations) } : {}),
    labels: node.labels,
    annotations: node.annotations,
    taints: node.taints,
  };
}

/**
 * Who wrote a seeded cordon, as its Node's managedFields will say: the reconciler (whose writes name
 * FIELD_MANAGER) when our cordon mark is on it, else an operator's `kubectl cordon` (kubectl names no
 * field manager: the server takes its User-Agent's `kubectl`).
 */
function cordonWriter(annotations: Readonly<Record<string, string>>): string {
  const by = annotations[CORDONED_BY_ANNOTATION];
  return by === CORDONED_BY_VALUE || by === CORDONED_BY_OPERATOR_VALUE ? FIELD_MANAGER : 'kubectl';
}

export function podSeed(pod: Scenario['pods'][number], start: number): PodSeed {
  return {
    name: pod.name,
    namespace: pod.namespace,
    node: pod.node,
    labels: pod.labels,
    ...(pod.owner !== 'none' ? { owner: pod.owner } : {}),
    mirror: pod.mirror,
    emptyDir: pod.emptyDir,
    phase: pod.phase,
    terminationGracePeriodSeconds: pod.terminationGracePeriodSeconds,
    createdAt: start - 60_000,
  };
}

export function pdbSeed(pdb: Scenario['pdbs'][number]): PdbSeed {
  return {
    name: pdb.name,
    namespace: pdb.namespace,
    selector: pdb.selector,
    ...(pdb.minAvailable !== undefined ? { minAvailable: pdb.minAvailable } : {}),
    ...(pdb.maxUnavailable !== undefined ? { maxUnavailable: pdb.maxUnavailable } : {}),
  };
}

/**
 * One instance as the AWS emulator seeds it; `hooks` (hookDefinitions of all the scenario's instances)
 * gives its hook what another member wrote of it.
 */
export function instanceSeed(
  instance: Scenario['instances'][number],
  hooks: ReadonlyMap<string, HookDefinition> = new Map(),
): SeedInstance {
  const hook =
    instance.autoScaling?.hook !== undefined
      ? hooks.get(hookKey(instance.autoScaling.group, instance.autoScaling.hook))
      : undefined;
  const heartbeatTimeout = instance.autoScaling?.heartbeatTimeout ?? hook?.heartbeatTimeout?.value;
  const defaultResult = instance.autoScaling?.defaultResult ?? hook?.defaultResult?.value;
  return {
    id: instance.id,
    state: instance.state,
    zone: instance.zone,
    ...(instance.privateDnsName ? { privateDnsName: instance.privateDnsName } : {}),
    launchedAgo: instance.launchedAgo,
    tags: instance.tags,
    spot: instance.spot,
    ...(instance.autoScaling
      ? {
          autoScaling: {
            group: instance.autoScaling.group,
            lifecycleState: instance.autoScaling.lifecycleState,
            ...(instance.autoScaling.hook ? { hook: instance.autoScaling.hook } : {}),
            ...(instance.autoScaling.token ? { token: instance.autoScaling.token } : {}),
            ...(heartbeatTimeout !== undefined ? { heartbeatTimeout } : {}),
            ...(defaultResult ? { defaultResult } : {}),
            ...(hook?.transition ? { hookTransition: hook.transition.value } : {}),
          },
        }
      : {}),
    scheduledEvents: instance.scheduledEvents.map((e) => ({
      code: e.code,
      notBefore: e.notBefore,
      ...(e.notAfter !== undefined ? { notAfter: e.notAfter } : {}),
      ...(e.description ? { description: e.description } : {}),
    })),
    ...(instance.visibleAfter !== undefined ? { visibleAfter: instance.visibleAfter } : {}),
  };
}
