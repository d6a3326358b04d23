import type * as z from 'zod';
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import { LABEL_PREFIX } from '@ec2-node-reconciler/model/contract/labels.js';
import { regionOfZone } from '@ec2-node-reconciler/model/provider-id.js';
import type { InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { InstanceView } from '@ec2-node-reconciler/model/observation.js';
import type { InstanceState } from '@ec2-node-reconciler/model/instance-states.js';
import { IdSource, stableHex } from '../ids.js';
import { AutoScalingStore, DEFAULT_HEARTBEAT_TIMEOUT_MS, type LifecycleState } from './autoscaling.js';
import { ChangeFeed, type AwsChange, type ChangeListener } from './changes.js';
import { AccessEntryStore, ClusterStore, type ClusterRecord } from './clusters.js';
import { EventBusStore } from './event-bus.js';
import { membershipProblem, transitionOf } from './membership.js';
import { FunctionStore } from './functions.js';
import { LogStore } from './logs.js';
import { QueueStore } from './queues.js';
import { ScheduleStore } from './schedules.js';
import { StackStore } from './stacks.js';
import {
  InstanceStore,
  SHUTDOWN_REASON,
  userInitiated,
  type InstanceRecord,
  type InstanceTimings,
} from './instances.js';
import {
  parseSeed,
  SeedAutoScalingGroupSchema,
  SeedClusterSchema,
  SeedInstanceSchema,
  SeedStateMachineSchema,
  type AwsSeed,
  type SeedAutoScalingGroup,
  type SeedCluster,
  type SeedInstance,
  type SeedStateMachine,
} from './seed.js';
import { StepFunctionsStore, type StateMachineRecord } from './step-functions.js';
import { partitionOf } from '../partitions.js';

export interface AwsTimings extends InstanceTimings {
  /** How long a seeded `pending` instance takes to be `running`. */
  readonly startupMs: number;
  /** HeartbeatTimeout of lifecycle hooks created by seeding. */
  readonly lifecycleHeartbeatTimeoutMs: number;
}

export const DEFAULT_TIMINGS: AwsTimings = {
  startupMs: 30_000,
  shutdownMs: 30_000,
  terminatedRetentionMs: 3_600_000,
  lifecycleHeartbeatTimeoutMs: DEFAULT_HEARTBEAT_TIMEOUT_MS,
};

export interface AwsStateOptions {
  readonly clock: Clock;
  readonly region: string;
  readonly accountId: string;
  readonly timings?: Partial<AwsTimings>;
  /** Seed of the deterministic id source (request ids, tokens, event ids). */
  readonly idSeed?: string;
}

type SchedulingClock = Clock & { schedule(at: number, fire: () => void): void };
const canSchedule = (clock: Clock): clock is SchedulingClock =>
  typeof (clock as Partial<SchedulingClock>).schedule === 'function';

const DEFAULT_CA_DATA = Buffer.from(
  '-----BEGIN CERTIFICATE-----\nTUlJQ2V6Q0NBV09nQXdJQkFnSUJBREFOQmdrcWhraUc5dzBCQVFzRkFEQVZNUk13RVFZRFZRUURFd3ByZFdKbA==\n-----END CERTIFICATE-----\n',
).toString('base64');

/**
 * The emulated AWS account in one region: instances, Auto Scaling, EKS clusters and their access
 * entries, event buses and rules, Step Functions, Lambda functions, SQS queues, schedules,
 * CloudFormation stacks and CloudWatch Logs. Time-driven transitions (shutdown, lifecycle heartbeat timeouts) are applied by
 * settle(), which every request runs first and which a VirtualClock also fires at the exact
 * simulated time, so change listeners see them when they happen.
 */
export class AwsState {
  readonly clock: Clock;
  readonly region: string;
  readonly accountId: string;
  readonly timings: AwsTimings;
  readonly ids: IdSource;
  readonly instances: InstanceStore;
  readonly autoScaling: AutoScalingStore;
  readonly clusters = new ClusterStore();
  readonly accessEntries = new AccessEntryStore();
  readonly eventBus = new EventBusStore();
  readonly stepFunctions = new StepFunctionsStore();
  readonly functions: FunctionStore;
  readonly queues = new QueueStore();
  readonly schedules = new ScheduleStore();
  readonly stacks = new StackStore();
  readonly logs = new LogStore();
  private readonly feed = new ChangeFeed();

  constructor(options: AwsStateOptions) {
    this.clock = options.clock;
    this.region = options.region;
    this.accountId = options.accountId;
    this.timings = { ...DEFAULT_TIMINGS, ...options.timings };
    this.ids = new IdSource(options.idSeed);
    const wake = (at: number): void => this.wake(at);
    this.instances = new InstanceStore(this.timings, this.feed, wake);
    this.autoScaling = new AutoScalingStore(this.instances, this.feed, this.ids, wake, (member, at) =>
      this.launchReplacement(member, at),
    );
    this.functions = new FunctionStore(this.region, this.accountId, () => this.clock.now());
  }

  /** Asks a VirtualClock to settle at `at`, so changes surface at their simulated time. */
  private wake(at: number): void {
    const clock = this.clock;
    if (canSchedule(clock) && at > clock.now()) clock.schedule(at, () => this.settle());
  }

  now(): number {
    return this.clock.now();
  }

  /** Applies every time-driven transition due by now. */
  settle(): void {
    const now = this.clock.now();
    // A lifecycle timeout can terminate an instance in the past; loop until both stores agree.
    for (let round = 0; round < 10; round++) {
      const lifecycle = this.autoScaling.settle(now);
      const instances = this.instances.settle(now);
      if (!lifecycle && !instances) return;
    }
  }

  get changes(): readonly AwsChange[] {
    return this.feed.changes;
  }

  onChange(listener: ChangeListener): () => void {
    return this.feed.subscribe(listener);
  }

  /** Seeds everything a scenario describes on the AWS side. */
  seed(seed: AwsSeed): void {
    seed.autoScalingGroups?.forEach((g) => this.seedAutoScalingGroup(g));
    seed.instances?.forEach((i) => this.seedInstance(i));
    seed.clusters?.forEach((c) => this.seedCluster(c));
    seed.stateMachines?.forEach((m) => this.seedStateMachine(m));
    seed.eventBuses?.forEach((b) => this.eventBus.createBus(b));
  }

  /** Adds one instance from its scenario description; returns undefined for `state: absent`. */
  seedInstance(input: SeedInstance): InstanceRecord | undefined {
    const seed = parseSeed(SeedInstanceSchema, input, `instances[${String(input.id)}]`);
    if (seed.state === 'absent') return undefined;
    // Every zone form of the region: standard, Local Zones and Wavelength Zones.
    if (regionOfZone(seed.zone) !== this.region) {
      throw new Error(`seeding instance ${seed.id}: zone ${seed.zone} is not in the emulator's region ${this.region}`);
    }
    const now = this.clock.now();
    const privateDnsName = seed.privateDnsName ?? defaultPrivateDnsName(seed.id, this.region);
    const tags = new Map(Object.entries(seed.tags ?? {}));
    const group = seed.autoScaling;
    if (group) tags.set('aws:autoscaling:groupName', group.group);
    const goingOrGone = seed.state !== 'pending' && seed.state !== 'running';
    const record: InstanceRecord = {
      id: seed.id,
      reservationId: `r-${stableHex(`reservation:${seed.id}`, 17)}`,
      imageId: seed.imageId ?? 'ami-0c1a2b3c4d5e6f708',
      instanceType: seed.instanceType ?? 'm5.large',
      zone: seed.zone,
      privateDnsName,
      privateIpAddress: seed.privateIpAddress ?? ipFromDnsName(privateDnsName) ?? ipFromId(seed.id),
      subnetId: `subnet-${stableHex(`subnet:${seed.zone}`, 17)}`,
      vpcId: `vpc-${stableHex(`vpc:${this.region}`, 17)}`,
      launchedAt: now - (seed.launchedAgo ?? 0),
      spotInstanceRequestId: seed.spot ? `sir-${stableHex(`spot:${seed.id}`, 8)}` : undefined,
      tags,
      scheduledEvents: (seed.scheduledEvents ?? []).map((e) => ({
        id: `instance-event-${this.ids.hex(17)}`,
        code: e.code,
        notBefore: now + e.notBefore,
        notAfter: e.notAfter === undefined ? undefined : now + e.notAfter,
        description: e.description ?? EVENT_DESCRIPTIONS[e.code] ?? e.code,
      })),
      visibleAfter: now + (seed.visibleAfter ?? 0),
      state: seed.state,
      stateSince: now,
      transitionReason: goingOrGone ? userInitiated(now) : '',
      stateReason: goingOrGone ? SHUTDOWN_REASON : undefined,
      pending: [],
    };
    // An instance seeded between states finishes the transition, as it would on EC2.
    const next = IN_TRANSITION[seed.state];
    if (next) {
      const at = now + (seed.state === 'pending' ? this.timings.startupMs : this.timings.shutdownMs);
      record.pending.push({ at, state: next });
      this.wake(at);
    }
    if (group) checkMembership(seed.id, group, seed.state);
    this.instances.add(record);
    if (group) this.seedMembership(seed.id, group, now);
    return record;
  }

  private seedMembership(
    instanceId: InstanceId,
    group: NonNullable<z.output<typeof SeedInstanceSchema>['autoScaling']>,
    now: number,
  ): void {
    const lifecycleState: LifecycleState = group.lifecycleState ?? 'InService';
    const waiting = lifecycleState.endsWith(':Wait');
    if (group.hook !== undefined && !this.autoScaling.hook(group.group, group.hook)) {
      this.autoScaling.putHook(group.group, {
        name: group.hook,
        transition:
          (group.hookTransition ?? transitionOf(lifecycleState)) === 'launching'
            ? 'autoscaling:EC2_INSTANCE_LAUNCHING'
            : 'autoscaling:EC2_INSTANCE_TERMINATING',
        heartbeatTimeoutMs: group.heartbeatTimeout ?? this.timings.lifecycleHeartbeatTimeoutMs,
        defaultResult: group.defaultResult ?? 'ABANDON',
      });
    }
    this.autoScaling.addMember(
      { instanceId, group: group.group, lifecycleState, healthStatus: 'HEALTHY', protectedFromScaleIn: false },
      waiting && group.hook !== undefined ? { hook: group.hook, token: group.token, at: now } : undefined,
    );
    this.autoScaling.inheritTags(group.group, this.instances.get(instanceId)?.tags ?? new Map<string, string>());
  }

  /** Gives a group its own tags (IAM reads them for group actions); see SeedAutoScalingGroupSchema. */
  seedAutoScalingGroup(input: SeedAutoScalingGroup): void {
    const seed = parseSeed(SeedAutoScalingGroupSchema, input, `autoScalingGroups[${String(input.name)}]`);
    this.autoScaling.tagGroup(seed.name, seed.tags);
  }

  seedCluster(input: SeedCluster): ClusterRecord {
    const seed = parseSeed(SeedClusterSchema, input, `clusters[${String(input.name)}]`);
    const id = stableHex(`cluster:${seed.name}`, 32).toUpperCase();
    const cluster: ClusterRecord = {
      name: seed.name,
      arn: `arn:${partitionOf(this.region)}:eks:${this.region}:${this.accountId}:cluster/${seed.name}`,
      createdAt: this.clock.now() - (seed.createdAgo ?? 0),
      version: seed.version ?? '1.33',
      platformVersion: seed.platformVersion ?? 'eks.9',
      endpoint: seed.endpoint,
      certificateAuthorityData: seed.certificateAuthorityData ?? DEFAULT_CA_DATA,
      roleArn: seed.roleArn ?? `arn:${partitionOf(this.region)}:iam::${this.accountId}:role/${seed.name}-cluster-role`,
      status: seed.status ?? 'ACTIVE',
      vpcId: `vpc-${stableHex(`vpc:${this.region}`, 17)}`,
      subnetIds: ['a', 'b', 'c'].map((z) => `subnet-${stableHex(`subnet:${this.region}${z}`, 17)}`),
      clusterSecurityGroupId: `sg-${stableHex(`cluster-sg:${seed.name}`, 17)}`,
      oidcIssuer: `https://oidc.eks.${this.region}.amazonaws.com/id/${id}`,
      authenticationMode: seed.authenticationMode ?? 'API_AND_CONFIG_MAP',
      tags: seed.tags ?? {},
    };
    this.clusters.put(cluster);
    return cluster;
  }

  seedStateMachine(input: SeedStateMachine): StateMachineRecord {
    const seed = parseSeed(SeedStateMachineSchema, input, `stateMachines[${String(input.name)}]`);
    const machine: StateMachineRecord = {
      name: seed.name,
      arn: `arn:${partitionOf(this.region)}:states:${this.region}:${this.accountId}:stateMachine:${seed.name}`,
      type: seed.type ?? 'STANDARD',
    };
    this.stepFunctions.putStateMachine(machine);
    return machine;
  }

  createEventBus(name: string): void {
    this.eventBus.createBus(name);
  }

  /**
   * What Auto Scaling does after terminating an Unhealthy member: launch a new one in the group, from
   * the same launch template (zone, type, image and tags, but not the ones an operator put on that
   * instance for the reconciler; the group's name tag is its own), pending
   * first, running after the startup time.
   */
  private launchReplacement(member: { readonly instanceId: string; readonly group: string }, at: number): void {
    const old = this.instances.get(member.instanceId);
    if (!old) return;
    const id = `i-${this.ids.hex(17)}`;
    const tags = Object.fromEntries(
      [...old.tags].filter(([key]) => !key.startsWith('aws:') && !key.startsWith(`${LABEL_PREFIX}/`)),
    );
    this.seedInstance({
      id,
      state: 'pending',
      zone: old.zone,
      tags,
      instanceType: old.instanceType,
      imageId: old.imageId,
      autoScaling: { group: member.group },
    });
    this.feed.emit({ kind: 'instance-launched', at, instanceId: id, group: member.group, replaces: member.instanceId });
  }

  /** Terminates an instance as if someone called TerminateInstances now. */
  terminateInstance(id: string): void {
    this.settle();
    this.instances.terminate(id, this.clock.now());
  }

  /** Puts an instance in a state now (stop, start, …), for scenario steps. */
  setInstanceState(id: string, state: InstanceState): void {
    this.settle();
    this.instances.setState(id, state, this.clock.now());
  }

  /** Starts an Auto Scaling scale-in of one instance; see AutoScalingStore.startTermination. */
  startAsgTermination(
    id: string,
    destination?: 'WarmPool',
  ): { group: string; hook: string; token: string } | undefined {
    this.settle();
    return this.autoScaling.startTermination(id, this.clock.now(), undefined, destination);
  }

  /** The instance as the reconciler's observation model sees it (ignoring read visibility). */
  instanceView(id: string): InstanceView | undefined {
    this.settle();
    const record = this.instances.get(id);
    if (!record) return undefined;
    const member = this.autoScaling.member(id);
    return {
      id: record.id,
      state: record.state,
      zone: record.zone,
      privateDnsName: record.state === 'terminated' ? undefined : record.privateDnsName,
      launchedAt: record.launchedAt,
      tags: Object.fromEntries(record.tags),
      spot: record.spotInstanceRequestId !== undefined,
      autoScaling: member ? { group: member.group, lifecycleState: member.lifecycleState } : undefined,
      scheduledEvents: record.scheduledEvents.map((e) => ({
        code: e.code,
        notBefore: e.notBefore,
        notAfter: e.notAfter,
        description: e.description,
      })),
    };
  }
}

const IN_TRANSITION: Partial<Record<InstanceState, InstanceState>> = {
  pending: 'running',
  'shutting-down': 'terminated',
  stopping: 'stopped',
};

/** Refuses a membership Auto Scaling could not be in, before anything is stored. */
function checkMembership(
  instanceId: string,
  group: NonNullable<SeedInstance['autoScaling']>,
  state: InstanceState,
): void {
  const problem = membershipProblem(group, state);
  if (problem === undefined) return;
  throw new Error(
    problem.key === 'lifecycleState'
      ? `seeding instance ${instanceId}: ${problem.message}`
      : `seeding instance ${instanceId}: autoScaling.${problem.key} ${problem.message}`,
  );
}

const EVENT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'instance-retirement': 'The instance is running on degraded hardware',
  'instance-stop': 'The instance is running on degraded hardware',
  'instance-reboot': 'Scheduled reboot',
  'system-reboot': 'Scheduled system reboot',
  'system-maintenance': 'Scheduled system maintenance',
};

/** `ip-10-a-b-c.ec2.internal` (us-east-1) or `ip-10-a-b-c.<region>.compute.internal`, stable per id. */
export function defaultPrivateDnsName(id: string, region: string): string {
  const ip = ipFromId(id).replaceAll('.', '-');
  return region === 'us-east-1' ? `ip-${ip}.ec2.internal` : `ip-${ip}.${region}.compute.internal`;
}

function ipFromId(id: string): string {
  const h = stableHex(`ip:${id}`, 6);
  const octet = (i: number): number => parseInt(h.slice(i, i + 2), 16);
  return `10.${octet(0)}.${octet(2)}.${(octet(4) % 254) + 1}`;
}

function ipFromDnsName(name: string): string | undefined {
  const match = /^ip-(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})\./.exec(name);
  return match ? match.slice(1, 5).join('.') : undefined;
}

export type { AwsSeed, SeedAutoScalingGroup, SeedCluster, SeedInstance, SeedStateMachine } from './seed.js';
export type { AwsChange } from './changes.js';
