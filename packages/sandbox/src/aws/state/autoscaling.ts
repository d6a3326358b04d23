import { CLUSTER_OWNERSHIP_TAG_PREFIX, CLUSTER_TAG_EKS } from '@ec2-node-reconciler/model/contract/labels.js';
import type { LifecycleState } from '@ec2-node-reconciler/model/lifecycle-states.js';
import { stableHex, type IdSource } from '../ids.js';
import type { ChangeFeed, LifecycleActionResult, LifecycleTransition } from './changes.js';
import type { InstanceStore } from './instances.js';

// Every state Auto Scaling reports: the product's model has the list (a snapshot writes only these).
export { LIFECYCLE_STATES, type LifecycleState } from '@ec2-node-reconciler/model/lifecycle-states.js';

/** A warm pool's member (`Warmed:*`): DescribeWarmPool lists it, DescribeAutoScalingGroups does not. */
export const isWarmed = (state: LifecycleState): boolean => state.startsWith('Warmed:');

/** Where a member is once Auto Scaling has started terminating it (or has terminated it). */
const isTerminating = (state: LifecycleState): boolean => /^(Warmed:)?Terminat/.test(state);

/** A warm pool's PoolState: what its members are kept as once warmed (PutWarmPool). */
export type WarmPoolState = 'Stopped' | 'Running' | 'Hibernated';

/** A group's warm pool as DescribeWarmPool and DescribeAutoScalingGroups describe it. */
export interface WarmPool {
  readonly poolState: WarmPoolState;
  readonly minSize: number;
}

export interface LifecycleHook {
  readonly name: string;
  readonly transition: LifecycleTransition;
  readonly heartbeatTimeoutMs: number;
  readonly defaultResult: LifecycleActionResult;
}

interface PendingAction {
  readonly hook: LifecycleHook;
  /** Undefined when seeded without one: any token is then accepted for this instance's action. */
  readonly token?: string;
  readonly startedAt: number;
  lastHeartbeatAt: number;
  /** A scale-in into the warm pool (Destination WarmPool, the pool reusing members): the member goes back to the pool, not to termination. */
  readonly toWarmPool?: boolean;
}

export interface AsgMember {
  readonly instanceId: string;
  readonly group: string;
  lifecycleState: LifecycleState;
  healthStatus: 'HEALTHY' | 'UNHEALTHY';
  readonly protectedFromScaleIn: boolean;
  action?: PendingAction;
}

export interface LifecycleCompletion {
  readonly at: number;
  readonly instanceId: string;
  readonly group: string;
  readonly hook: string;
  readonly token?: string;
  readonly result: LifecycleActionResult;
  readonly by: 'api' | 'timeout';
}

export interface LifecycleHeartbeat {
  readonly at: number;
  readonly instanceId: string;
  readonly group: string;
  readonly hook: string;
}

export interface HealthChange {
  readonly at: number;
  readonly instanceId: string;
  readonly group: string;
  readonly healthStatus: 'HEALTHY' | 'UNHEALTHY';
  readonly shouldRespectGracePeriod?: boolean;
}

/** What identifies a lifecycle action in CompleteLifecycleAction / RecordLifecycleActionHeartbeat. */
export interface ActionSelector {
  readonly group: string;
  readonly hook: string;
  readonly token?: string;
  readonly instanceId?: string;
}

/** A group as IAM sees it: the UUID in its ARN and the tags its conditions read. */
export interface AutoScalingGroupRecord {
  readonly name: string;
  /** Stable per name: the `autoScalingGroup:<uuid>:` part of the group's ARN. */
  readonly uuid: string;
  readonly tags: Readonly<Record<string, string>>;
  /** Given by the seed or a test (never derived from members again), rather than taken from members. */
  readonly explicitTags: boolean;
}

/**
 * Member tags a group carries itself, because the group is where they come from: EKS managed node
 * groups and eksctl tag the group with the cluster (`eks:cluster-name`, `eks:nodegroup-name`,
 * `kubernetes.io/cluster/<name>`, the cluster autoscaler's `k8s.io/cluster-autoscaler/…`) and
 * propagate those tags to every instance they launch.
 */
export function isPropagatedGroupTag(key: string): boolean {
  return (
    key === CLUSTER_TAG_EKS ||
    key === 'eks:nodegroup-name' ||
    key.startsWith(CLUSTER_OWNERSHIP_TAG_PREFIX) ||
    key.startsWith('k8s.io/cluster-autoscaler/')
  );
}

/** A version-4-shaped UUID derived from the group's name, so a group's ARN is the same in every run. */
export function autoScalingGroupUuid(name: string): string {
  const h = stableHex(`autoScalingGroup:${name}`, 32);
  const variant = ((parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The processes SuspendProcesses may suspend (all of them when it names none). */
export const SCALING_PROCESSES = [
  'Launch',
  'Terminate',
  'AddToLoadBalancer',
  'AlarmNotification',
  'AZRebalance',
  'HealthCheck',
  'InstanceRefresh',
  'ReplaceUnhealthy',
  'ScheduledActions',
] as const;
export type ScalingProcess = (typeof SCALING_PROCESSES)[number];
export const isScalingProcess = (name: string): name is ScalingProcess =>
  (SCALING_PROCESSES as readonly string[]).includes(name);

/** A suspended process as DescribeAutoScalingGroups lists it. */
export interface SuspendedProcess {
  readonly process: ScalingProcess;
  readonly reason: string;
}

/** One hour: Auto Scaling's default HeartbeatTimeout. */
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 3_600_000;
const MAX_GLOBAL_TIMEOUT_MS = 48 * 3_600_000;

export class LifecycleActionNotFound extends Error {
  constructor(readonly selector: ActionSelector) {
    super(
      selector.token !== undefined
        ? `No active Lifecycle Action found with token ${selector.token}`
        : `No active Lifecycle Action found with instance ID ${selector.instanceId ?? ''}`,
    );
    this.name = 'LifecycleActionNotFound';
  }
}

/**
 * Auto Scaling groups as far as the reconciler meets them: members, their lifecycle states,
 * pending lifecycle actions (with heartbeat timeouts) and what was done to them.
 */
export class AutoScalingStore {
  private readonly hooksByGroup = new Map<string, Map<string, LifecycleHook>>();
  private readonly groups = new Map<string, AutoScalingGroupRecord>();
  private readonly members = new Map<string, AsgMember>();
  /** Group → its suspended processes (SuspendProcesses), in the order they were suspended. */
  private readonly suspended = new Map<string, Map<ScalingProcess, SuspendedProcess>>();
  /** Members by group, in seed order: a group's reads and lifecycle calls never scan other groups. */
  private readonly byGroup = new Map<string, Map<string, AsgMember>>();
  /** Members with a pending lifecycle action: the only ones settle() has to look at. */
  private readonly waiting = new Set<AsgMember>();
  /** Seed order of each member, to list looked-up members in the order a scan would. */
  private readonly rank = new Map<string, number>();
  /** Groups with a warm pool: those a member was seeded into as `Warmed:*`. */
  private readonly warmPools = new Map<string, WarmPool>();
  readonly completions: LifecycleCompletion[] = [];
  readonly heartbeats: LifecycleHeartbeat[] = [];
  readonly healthChanges: HealthChange[] = [];

  constructor(
    private readonly instances: InstanceStore,
    private readonly feed: ChangeFeed,
    private readonly ids: IdSource,
    private readonly wake: (at: number) => void,
    /** Launches a replacement for a member terminated as Unhealthy (the group keeps its capacity). */
    private readonly replace: (member: AsgMember, at: number) => void = () => undefined,
  ) {}

  /** A known group (one with members, hooks or tags), or undefined. */
  group(name: string): AutoScalingGroupRecord | undefined {
    return this.groups.get(name);
  }

  /** Sets a group's tags (creating the group if needed); they are not derived from its members any more. */
  tagGroup(name: string, tags: Readonly<Record<string, string>>): AutoScalingGroupRecord {
    const record: AutoScalingGroupRecord = {
      name,
      uuid: autoScalingGroupUuid(name),
      tags: { ...tags },
      explicitTags: true,
    };
    this.groups.set(name, record);
    return record;
  }

  /**
   * Gives a group the cluster tags of a member it has (see isPropagatedGroupTag), unless its tags
   * were given explicitly; the first member carrying a key decides its value.
   */
  inheritTags(name: string, memberTags: ReadonlyMap<string, string>): void {
    const group = this.ensureGroup(name);
    if (group.explicitTags) return;
    const tags = { ...group.tags };
    for (const [key, value] of memberTags) {
      if (isPropagatedGroupTag(key) && !Object.hasOwn(tags, key)) tags[key] = value;
    }
    this.groups.set(name, { ...group, tags });
  }

  private ensureGroup(name: string): AutoScalingGroupRecord {
    const existing = this.groups.get(name);
    if (existing) return existing;
    const record: AutoScalingGroupRecord = { name, uuid: autoScalingGroupUuid(name), tags: {}, explicitTags: false };
    this.groups.set(name, record);
    return record;
  }

  putHook(group: string, hook: LifecycleHook): void {
    this.ensureGroup(group);
    const hooks = this.hooksByGroup.get(group) ?? new Map<string, LifecycleHook>();
    hooks.set(hook.name, hook);
    this.hooksByGroup.set(group, hooks);
  }

  /** The group's hooks, or undefined when the group is unknown. */
  hooksOf(group: string): readonly LifecycleHook[] | undefined {
    const hooks = this.hooksByGroup.get(group);
    return hooks ? [...hooks.values()] : undefined;
  }

  hook(group: string, name: string): LifecycleHook | undefined {
    return this.hooksByGroup.get(group)?.get(name);
  }

  addMember(member: Omit<AsgMember, 'action'>, action?: { hook: string; token?: string; at: number }): void {
    if (this.members.has(member.instanceId))
      throw new Error(`seeding ${member.instanceId}: already in group ${member.group}`);
    if (!this.hooksByGroup.has(member.group)) this.hooksByGroup.set(member.group, new Map());
    this.ensureGroup(member.group);
    const stored: AsgMember = { ...member };
    if (action) {
      const hook = this.hook(member.group, action.hook);
      if (!hook) throw new Error(`seeding ${member.instanceId}: group ${member.group} has no hook ${action.hook}`);
      stored.action = { hook, token: action.token, startedAt: action.at, lastHeartbeatAt: action.at };
      this.waiting.add(stored);
      this.wake(this.deadline(stored.action));
    }
    this.members.set(member.instanceId, stored);
    this.rank.set(member.instanceId, this.rank.size);
    if (isWarmed(member.lifecycleState) && !this.warmPools.has(member.group))
      this.warmPools.set(member.group, { poolState: poolStateOf(member.lifecycleState), minSize: 0 });
    const group = this.byGroup.get(member.group) ?? new Map<string, AsgMember>();
    group.set(member.instanceId, stored);
    this.byGroup.set(member.group, group);
  }

  /** Every group's name (those with members, hooks or tags), sorted. */
  groupNames(): string[] {
    return [...new Set([...this.hooksByGroup.keys(), ...this.groups.keys()])].sort();
  }

  /** Whether the group exists (a seeded group with tags and nothing else is one). */
  hasGroup(group: string): boolean {
    return this.hooksByGroup.has(group) || this.groups.has(group);
  }

  member(instanceId: string): AsgMember | undefined {
    return this.members.get(instanceId);
  }

  /**
   * Members as DescribeAutoScalingInstances lists them: an instance leaves its group once EC2 has
   * terminated it (or no longer knows it).
   */
  listed(instanceIds?: ReadonlySet<string>): readonly AsgMember[] {
    if (instanceIds === undefined || instanceIds.size === 0)
      return [...this.members.values()].filter((m) => this.isListed(m));
    // Looked up, not scanned for; in seed order, as a scan would list them.
    return [...instanceIds]
      .flatMap((id) => this.members.get(id) ?? [])
      .filter((m) => this.isListed(m))
      .sort((a, b) => (this.rank.get(a.instanceId) ?? 0) - (this.rank.get(b.instanceId) ?? 0));
  }

  /**
   * A group's members as DescribeAutoScalingGroups lists them (the same rule as `listed`): not those
   * of its warm pool, which only DescribeWarmPool (and DescribeAutoScalingInstances) lists.
   */
  listedIn(group: string): readonly AsgMember[] {
    return [...(this.byGroup.get(group)?.values() ?? [])].filter(
      (m) => this.isListed(m) && !isWarmed(m.lifecycleState),
    );
  }

  /** The group's warm pool, or undefined when it has none. */
  warmPoolOf(group: string): WarmPool | undefined {
    return this.warmPools.get(group);
  }

  /** The members of a group's warm pool as DescribeWarmPool lists them, in seed order. */
  warmIn(group: string): readonly AsgMember[] {
    return [...(this.byGroup.get(group)?.values() ?? [])].filter((m) => this.isListed(m) && isWarmed(m.lifecycleState));
  }

  private isListed(m: AsgMember): boolean {
    const instance = this.instances.get(m.instanceId);
    return instance !== undefined && instance.state !== 'terminated';
  }

  /**
   * Scale-in (or an unhealthy replacement) of one member, as Auto Scaling starts it: with a
   * termination hook the instance waits in `Terminating:Wait` under a fresh token; without one it
   * is terminated at once. A warm pool's member (shrunk out of the pool, refreshed) goes the same way
   * through `Warmed:Terminating:Wait`: the group's terminate hooks apply to it too. Returns the
   * lifecycle action, if any.
   */
  startTermination(
    instanceId: string,
    at: number,
    origin?: 'health',
    destination?: 'WarmPool',
  ): { group: string; hook: string; token: string } | undefined {
    const member = this.members.get(instanceId);
    if (!member) throw new Error(`instance ${instanceId} is in no Auto Scaling group`);
    if (isTerminating(member.lifecycleState)) return undefined;
    const warmed = isWarmed(member.lifecycleState);
    const hook = [...(this.hooksByGroup.get(member.group)?.values() ?? [])].find(
      (h) => h.transition === 'autoscaling:EC2_INSTANCE_TERMINATING',
    );
    const toWarmPool = destination === 'WarmPool' && !warmed;
    if (!hook && toWarmPool) {
      this.enterWarmPool(member, at);
      return undefined;
    }
    if (!hook) {
      member.lifecycleState = warmed ? 'Warmed:Terminating' : 'Terminating';
      member.action = undefined;
      this.instances.terminate(instanceId, at);
      this.replaceIfUnhealthy(member, at);
      return undefined;
    }
    const token = this.ids.uuid();
    member.lifecycleState = warmed ? 'Warmed:Terminating:Wait' : 'Terminating:Wait';
    member.action = { hook, token, startedAt: at, lastHeartbeatAt: at, ...(toWarmPool ? { toWarmPool } : {}) };
    this.waiting.add(member);
    this.wake(this.deadline(member.action));
    this.feed.emit({
      kind: 'lifecycle-action-started',
      at,
      instanceId,
      group: member.group,
      hook: hook.name,
      transition: hook.transition,
      token,
      ...(origin ? { origin } : {}),
    });
    return { group: member.group, hook: hook.name, token };
  }

  /** A warm pool's member drawn into its group (a scale-out from the pool, its launch hooks done): InService. */
  enterService(instanceId: string): void {
    const member = this.members.get(instanceId);
    if (!member || !isWarmed(member.lifecycleState) || isTerminating(member.lifecycleState)) return;
    member.lifecycleState = 'InService';
  }

  /** Completes a pending action (CompleteLifecycleAction); throws LifecycleActionNotFound. */
  complete(selector: ActionSelector, result: LifecycleActionResult, at: number): AsgMember {
    const member = this.find(selector);
    this.finish(member, result, at, 'api', selector.token);
    return member;
  }

  /** The machine whose pending action `selector` names now (as a heartbeat or completion would find it), if any. */
  machineOfAction(selector: ActionSelector): string | undefined {
    try {
      return this.find(selector).instanceId;
    } catch (error) {
      if (error instanceof LifecycleActionNotFound) return undefined;
      throw error;
    }
  }

  /** Restarts the heartbeat timeout (RecordLifecycleActionHeartbeat); throws LifecycleActionNotFound. */
  heartbeat(selector: ActionSelector, at: number): AsgMember {
    const member = this.find(selector);
    const action = member.action;
    if (action) {
      action.lastHeartbeatAt = at;
      this.wake(this.deadline(action));
    }
    this.heartbeats.push({ at, instanceId: member.instanceId, group: member.group, hook: selector.hook });
    return member;
  }

  /** SuspendProcesses: these processes (every one when none is named) stop until resumed. */
  suspend(group: string, processes: readonly ScalingProcess[], at: number): void {
    const suspended = this.suspended.get(group) ?? new Map<ScalingProcess, SuspendedProcess>();
    const reason = `User suspended at ${new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
    for (const process of processes.length > 0 ? processes : SCALING_PROCESSES) {
      if (!suspended.has(process)) suspended.set(process, { process, reason });
    }
    this.suspended.set(group, suspended);
  }

  /** ResumeProcesses: these processes (every one when none is named) run again. */
  resume(group: string, processes: readonly ScalingProcess[]): void {
    const suspended = this.suspended.get(group);
    if (!suspended) return;
    for (const process of processes.length > 0 ? processes : SCALING_PROCESSES) suspended.delete(process);
  }

  /** The group's suspended processes. */
  suspendedIn(group: string): readonly SuspendedProcess[] {
    return [...(this.suspended.get(group)?.values() ?? [])];
  }

  private isSuspended(group: string, process: ScalingProcess): boolean {
    return this.suspended.get(group)?.has(process) === true;
  }

  /**
   * SetInstanceHealth: an Unhealthy instance is replaced (ReplaceUnhealthy), which starts its
   * termination. With ReplaceUnhealthy or Terminate suspended it stays, marked Unhealthy; with
   * Launch suspended it is terminated and nothing replaces it.
   */
  setHealth(
    instanceId: string,
    healthStatus: 'HEALTHY' | 'UNHEALTHY',
    at: number,
    shouldRespectGracePeriod?: boolean,
  ): AsgMember | undefined {
    const member = this.members.get(instanceId);
    if (!member) return undefined;
    member.healthStatus = healthStatus;
    this.healthChanges.push({ at, instanceId, group: member.group, healthStatus, shouldRespectGracePeriod });
    this.feed.emit({ kind: 'instance-health', at, instanceId, group: member.group, healthStatus });
    const replacing =
      !this.isSuspended(member.group, 'ReplaceUnhealthy') && !this.isSuspended(member.group, 'Terminate');
    if (healthStatus === 'UNHEALTHY' && member.lifecycleState === 'InService' && replacing)
      this.startTermination(instanceId, at, 'health');
    return member;
  }

  /** Applies the default result of every action whose heartbeat timeout has passed. */
  settle(now: number): boolean {
    let changed = false;
    for (const member of this.waiting) {
      if (!member.action) {
        this.waiting.delete(member);
        continue;
      }
      const deadline = this.deadline(member.action);
      if (deadline > now) continue;
      this.finish(member, member.action.hook.defaultResult, deadline, 'timeout', member.action.token);
      changed = true;
    }
    return changed;
  }

  private deadline(action: PendingAction): number {
    const timeout = action.hook.heartbeatTimeoutMs;
    return Math.min(
      action.lastHeartbeatAt + timeout,
      action.startedAt + Math.min(100 * timeout, MAX_GLOBAL_TIMEOUT_MS),
    );
  }

  private find(selector: ActionSelector): AsgMember {
    const candidates = [...(this.byGroup.get(selector.group)?.values() ?? [])].filter(
      (m) =>
        m.group === selector.group &&
        m.action?.hook.name === selector.hook &&
        (selector.instanceId === undefined || m.instanceId === selector.instanceId) &&
        (selector.token === undefined || m.action.token === undefined || m.action.token === selector.token),
    );
    // A token alone must point at one action: an exact match wins over seeded "any token" actions.
    const exact = candidates.filter((m) => selector.token !== undefined && m.action?.token === selector.token);
    const chosen = exact.length === 1 ? exact[0] : candidates.length === 1 ? candidates[0] : undefined;
    if (!chosen || (selector.token === undefined && selector.instanceId === undefined))
      throw new LifecycleActionNotFound(selector);
    return chosen;
  }

  private finish(
    member: AsgMember,
    result: LifecycleActionResult,
    at: number,
    by: 'api' | 'timeout',
    token: string | undefined,
  ): void {
    const action = member.action;
    if (!action) return;
    member.action = undefined;
    this.waiting.delete(member);
    const terminating = action.hook.transition === 'autoscaling:EC2_INSTANCE_TERMINATING';
    this.completions.push({
      at,
      instanceId: member.instanceId,
      group: member.group,
      hook: action.hook.name,
      token,
      result,
      by,
    });
    this.feed.emit({
      kind: 'lifecycle-action-completed',
      at,
      instanceId: member.instanceId,
      group: member.group,
      hook: action.hook.name,
      result,
      by,
    });
    if (!terminating && result === 'CONTINUE') {
      // A launch into the warm pool ends warmed, as the pool keeps its members; any other, in service.
      const pool = isWarmed(member.lifecycleState) ? this.warmPools.get(member.group) : undefined;
      member.lifecycleState = pool ? `Warmed:${pool.poolState}` : 'InService';
      return;
    }
    // Scaled in into the warm pool: whatever the result, the member rests in the pool as its PoolState says.
    if (terminating && action.toWarmPool) {
      this.enterWarmPool(member, at);
      return;
    }
    // A terminating hook proceeds to termination whatever the result; an abandoned launch is terminated too.
    const warmed = isWarmed(member.lifecycleState);
    member.lifecycleState = terminating
      ? warmed
        ? 'Warmed:Terminating:Proceed'
        : 'Terminating:Proceed'
      : warmed
        ? 'Warmed:Terminating'
        : 'Terminating';
    this.instances.terminate(member.instanceId, at);
    if (terminating) this.replaceIfUnhealthy(member, at);
  }

  /** A member scaled in into its group's warm pool: kept there as the pool's PoolState says (stopped unless Running). */
  private enterWarmPool(member: AsgMember, at: number): void {
    const pool = this.warmPools.get(member.group) ?? { poolState: 'Stopped' as const, minSize: 0 };
    this.warmPools.set(member.group, pool);
    member.lifecycleState = `Warmed:${pool.poolState}`;
    if (pool.poolState !== 'Running') this.instances.stop(member.instanceId, at);
  }

  /** An instance the group terminates because it is Unhealthy is replaced (a scale-in is not): health checks keep capacity. */
  private replaceIfUnhealthy(member: AsgMember, at: number): void {
    if (member.healthStatus === 'UNHEALTHY' && !this.isSuspended(member.group, 'Launch')) this.replace(member, at);
  }
}

/** The PoolState a warm member's state shows (a `Warmed:Pending…` one: the default, Stopped). */
function poolStateOf(state: LifecycleState): WarmPoolState {
  return state === 'Warmed:Running' ? 'Running' : state === 'Warmed:Hibernated' ? 'Hibernated' : 'Stopped';
}
