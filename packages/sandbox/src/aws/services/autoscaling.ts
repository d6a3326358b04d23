import * as z from 'zod';
import { AwsError } from '../errors.js';
import { stableHex } from '../ids.js';
import { renderMember } from '../protocol/aws-query.js';
import {
  isScalingProcess,
  LifecycleActionNotFound,
  SCALING_PROCESSES,
  type ActionSelector,
  type AsgMember,
  type ScalingProcess,
  type WarmPool,
} from '../state/autoscaling.js';
import { paginate } from './pagination.js';
import type { AwsQueryService, QueryResultValue, RenderedMember, RequestContext } from './types.js';
import { parseInput, queryBool, queryInt, queryList, smithyValidation } from './validate.js';
import { partitionOf } from '../partitions.js';

const invalid = smithyValidation('ValidationError');

const HookName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[A-Za-z0-9\-_/]+$/);
const GroupName = z.string().min(1).max(1600);
const InstanceId = z.string().min(1).max(19);
const Token = z.string().length(36);

const DescribeAutoScalingInstancesInput = z.object({
  InstanceIds: queryList(InstanceId, 50).optional(),
  MaxRecords: queryInt.pipe(z.number().int().min(1).max(50)).optional(),
  NextToken: z.string().optional(),
});

const ActionInput = {
  LifecycleHookName: HookName,
  AutoScalingGroupName: GroupName,
  LifecycleActionToken: Token.optional(),
  InstanceId: InstanceId.optional(),
};
const CompleteLifecycleActionInput = z.object({ ...ActionInput, LifecycleActionResult: z.string().min(1) });
const RecordLifecycleActionHeartbeatInput = z.object(ActionInput);

const DescribeLifecycleHooksInput = z.object({
  AutoScalingGroupName: GroupName,
  LifecycleHookNames: z.array(HookName).optional(),
});

const SetInstanceHealthInput = z.object({
  InstanceId,
  HealthStatus: z.string().min(1).max(32),
  ShouldRespectGracePeriod: queryBool.optional(),
});

const TagInput = z.object({
  ResourceId: GroupName,
  ResourceType: z.string().optional(),
  Key: z.string().min(1).max(128),
  Value: z.string().max(256).optional(),
  PropagateAtLaunch: queryBool.optional(),
});
const CreateOrUpdateTagsInput = z.object({ Tags: queryList(TagInput, 50) });
const DeleteTagsInput = z.object({
  Tags: queryList(TagInput.partial({ Key: true }).required({ ResourceId: true }), 50),
});

const ScalingProcessesInput = z.object({
  AutoScalingGroupName: GroupName,
  ScalingProcesses: queryList(z.string().min(1).max(255), 100).optional(),
});

/** The processes a Suspend/ResumeProcesses call names, each one Auto Scaling knows, for a group it has. */
function scalingProcesses(params: unknown, ctx: RequestContext): { group: string; processes: ScalingProcess[] } {
  const input = parseInput(ScalingProcessesInput, params, invalid);
  if (!ctx.state.autoScaling.hasGroup(input.AutoScalingGroupName))
    throw new AwsError('ValidationError', `AutoScalingGroup name not found - ${input.AutoScalingGroupName}`);
  const names = input.ScalingProcesses ?? [];
  const unknown = names.filter((name) => !isScalingProcess(name));
  if (unknown.length > 0)
    throw new AwsError(
      'ValidationError',
      `Invalid scaling process ${unknown.join(', ')}: valid processes are ${SCALING_PROCESSES.join(', ')}`,
    );
  return { group: input.AutoScalingGroupName, processes: names.filter(isScalingProcess) };
}

function suspendProcesses(params: unknown, ctx: RequestContext): null {
  const { group, processes } = scalingProcesses(params, ctx);
  ctx.state.autoScaling.suspend(group, processes, ctx.state.now());
  return null;
}

function resumeProcesses(params: unknown, ctx: RequestContext): null {
  const { group, processes } = scalingProcesses(params, ctx);
  ctx.state.autoScaling.resume(group, processes);
  return null;
}

function selector(input: z.infer<typeof RecordLifecycleActionHeartbeatInput>): ActionSelector {
  if (input.LifecycleActionToken === undefined && input.InstanceId === undefined) {
    throw new AwsError('ValidationError', 'Either LifecycleActionToken or InstanceId must be specified.');
  }
  return {
    group: input.AutoScalingGroupName,
    hook: input.LifecycleHookName,
    token: input.LifecycleActionToken,
    instanceId: input.InstanceId,
  };
}

/** The store's "no such action" becomes the ValidationError AWS answers with, word for word. */
function asValidationError<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof LifecycleActionNotFound) throw new AwsError('ValidationError', error.message);
    throw error;
  }
}

function describeAutoScalingInstances(params: unknown, ctx: RequestContext): Record<string, QueryResultValue> {
  const input = parseInput(DescribeAutoScalingInstancesInput, params, invalid);
  const ids = input.InstanceIds ?? [];
  const wanted = new Set(ids);
  // Unknown ids are simply absent from the answer (no error), unlike EC2.
  const members = ctx.state.autoScaling.listed(wanted);
  const page = paginate(
    members,
    { size: input.MaxRecords ?? 50, token: input.NextToken, kind: 'dasi' },
    (token) => new AwsError('InvalidNextToken', `The token '${token}' is invalid.`),
  );
  return {
    AutoScalingInstances: page.items.map((m) => {
      const instance = ctx.state.instances.get(m.instanceId);
      return {
        InstanceId: m.instanceId,
        InstanceType: instance?.instanceType,
        AutoScalingGroupName: m.group,
        AvailabilityZone: instance?.zone,
        LifecycleState: m.lifecycleState,
        HealthStatus: m.healthStatus,
        LaunchTemplate: {
          LaunchTemplateId: `lt-${stableHex(`template:${m.group}`, 17)}`,
          LaunchTemplateName: `${m.group}-template`,
          Version: '1',
        },
        ProtectedFromScaleIn: m.protectedFromScaleIn,
      };
    }),
    NextToken: page.nextToken,
  };
}

const DescribeAutoScalingGroupsInput = z.object({
  AutoScalingGroupNames: queryList(GroupName, 1600).optional(),
  MaxRecords: queryInt.pipe(z.number().int().min(1).max(100)).optional(),
  NextToken: z.string().optional(),
  IncludeInstances: queryBool.optional(),
  Filters: z.unknown().optional(),
});

/** A UUID-shaped id stable per group name, as ARNs of Auto Scaling groups carry one. */
function groupUuid(group: string): string {
  const h = stableHex(`group:${group}`, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const launchTemplateOf = (group: string) => ({
  LaunchTemplateId: `lt-${stableHex(`template:${group}`, 17)}`,
  LaunchTemplateName: `${group}-template`,
  Version: '1',
});

/** A group's instance as DescribeAutoScalingGroups lists it, rendered once until its state or health changes. */
const renderedMembers = new WeakMap<AsgMember, { readonly key: string; readonly member: RenderedMember }>();
function groupMember(m: AsgMember, ctx: RequestContext): RenderedMember {
  const key = `${m.lifecycleState}|${m.healthStatus}|${String(m.protectedFromScaleIn)}`;
  const cached = renderedMembers.get(m);
  if (cached?.key === key) return cached.member;
  const instance = ctx.state.instances.get(m.instanceId);
  const member = renderMember({
    InstanceId: m.instanceId,
    InstanceType: instance?.instanceType,
    AvailabilityZone: instance?.zone,
    LifecycleState: m.lifecycleState,
    // DescribeAutoScalingGroups spells it Healthy/Unhealthy (DescribeAutoScalingInstances: HEALTHY).
    HealthStatus: m.healthStatus === 'HEALTHY' ? 'Healthy' : 'Unhealthy',
    LaunchTemplate: launchTemplateOf(m.group),
    ProtectedFromScaleIn: m.protectedFromScaleIn,
  });
  renderedMembers.set(m, { key, member });
  return member;
}

/**
 * Groups with their instances and each one's LifecycleState: one call answers for up to 100 groups
 * (MaxRecords), however many instances they hold. Unknown names are simply absent, as on AWS.
 */
function describeAutoScalingGroups(params: unknown, ctx: RequestContext): Record<string, QueryResultValue> {
  const input = parseInput(DescribeAutoScalingGroupsInput, params, invalid);
  if (input.Filters !== undefined)
    throw new AwsError('ValidationError', 'Filters are not emulated: name the groups in AutoScalingGroupNames');
  const size = input.MaxRecords ?? 50;
  const names = input.AutoScalingGroupNames;
  // AWS takes up to 50 names, or up to MaxRecords when it is higher.
  if (names !== undefined && names.length > Math.max(50, size)) {
    throw new AwsError(
      'ValidationError',
      `The number of AutoScalingGroupNames (${names.length}) exceeds the maximum (${Math.max(50, size)}); raise MaxRecords (up to 100)`,
    );
  }
  const store = ctx.state.autoScaling;
  const groups = names === undefined ? store.groupNames() : [...new Set(names)].filter((g) => store.hasGroup(g)).sort();
  const page = paginate(
    groups,
    { size, token: input.NextToken, kind: 'dasg' },
    (token) => new AwsError('InvalidNextToken', `The token '${token}' is invalid.`),
  );
  const now = ctx.state.now();
  return {
    AutoScalingGroups: page.items.map((group) => {
      const members = store.listedIn(group);
      const zones = [...new Set(members.map((m) => ctx.state.instances.get(m.instanceId)?.zone ?? ''))]
        .filter((z) => z !== '')
        .sort();
      return {
        AutoScalingGroupName: group,
        AutoScalingGroupARN: `arn:${partitionOf(ctx.state.region)}:autoscaling:${ctx.state.region}:${ctx.state.accountId}:autoScalingGroup:${groupUuid(group)}:autoScalingGroupName/${group}`,
        LaunchTemplate: launchTemplateOf(group),
        MinSize: 0,
        MaxSize: Math.max(members.length, 1),
        DesiredCapacity: members.length,
        DefaultCooldown: 300,
        AvailabilityZones: zones,
        HealthCheckType: 'EC2',
        HealthCheckGracePeriod: 15,
        Instances: input.IncludeInstances === false ? undefined : members.map((m) => groupMember(m, ctx)),
        // A group with a warm pool says so (its members are not among Instances: DescribeWarmPool lists them).
        ...warmPoolFields(store.warmPoolOf(group), store.warmIn(group).length),
        CreatedTime: new Date(now - 30 * 86_400_000),
        SuspendedProcesses: store
          .suspendedIn(group)
          .map((p) => ({ ProcessName: p.process, SuspensionReason: p.reason })),
        NewInstancesProtectedFromScaleIn: false,
        TerminationPolicies: ['Default'],
        // The group's own tags (what IAM conditions on autoscaling:ResourceTag read), propagated at launch.
        Tags: Object.entries(store.group(group)?.tags ?? {})
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([Key, Value]) => ({
            ResourceId: group,
            ResourceType: 'auto-scaling-group',
            Key,
            Value,
            PropagateAtLaunch: true,
          })),
      };
    }),
    NextToken: page.nextToken,
  };
}

/** WarmPoolConfiguration as PutWarmPool set it (the emulator keeps no reuse policy nor prepared capacity). */
const warmPoolConfiguration = (pool: WarmPool): Record<string, QueryResultValue> => ({
  MinSize: pool.minSize,
  PoolState: pool.poolState,
});

function warmPoolFields(pool: WarmPool | undefined, size: number): Record<string, QueryResultValue> {
  return pool ? { WarmPoolConfiguration: warmPoolConfiguration(pool), WarmPoolSize: size } : {};
}

const DescribeWarmPoolInput = z.object({
  AutoScalingGroupName: z.string().min(1).max(255),
  MaxRecords: queryInt.pipe(z.number().int().min(1).max(50)).optional(),
  NextToken: z.string().optional(),
});

/**
 * A group's warm pool and its instances (each with its `Warmed:*` LifecycleState), 50 a page at most.
 * A group without a warm pool answers neither a configuration nor instances; an unknown group is an error.
 */
function describeWarmPool(params: unknown, ctx: RequestContext): Record<string, QueryResultValue> {
  const input = parseInput(DescribeWarmPoolInput, params, invalid);
  const store = ctx.state.autoScaling;
  if (!store.hasGroup(input.AutoScalingGroupName))
    throw new AwsError('ValidationError', `AutoScalingGroup name not found - ${input.AutoScalingGroupName}`);
  const pool = store.warmPoolOf(input.AutoScalingGroupName);
  if (!pool) return { Instances: [] };
  const page = paginate(
    store.warmIn(input.AutoScalingGroupName),
    { size: input.MaxRecords ?? 50, token: input.NextToken, kind: 'dwp' },
    (token) => new AwsError('InvalidNextToken', `The token '${token}' is invalid.`),
  );
  return {
    WarmPoolConfiguration: warmPoolConfiguration(pool),
    Instances: page.items.map((m) => groupMember(m, ctx)),
    NextToken: page.nextToken,
  };
}

function completeLifecycleAction(params: unknown, ctx: RequestContext): Record<string, QueryResultValue> {
  const input = parseInput(CompleteLifecycleActionInput, params, invalid);
  const result = input.LifecycleActionResult;
  if (result !== 'CONTINUE' && result !== 'ABANDON') {
    throw new AwsError(
      'ValidationError',
      `Invalid value '${result}' for LifecycleActionResult. Valid values are CONTINUE and ABANDON.`,
    );
  }
  const target = selector(input);
  asValidationError(() => ctx.state.autoScaling.complete(target, result, ctx.state.now()));
  return {};
}

function recordLifecycleActionHeartbeat(params: unknown, ctx: RequestContext): Record<string, QueryResultValue> {
  const input = parseInput(RecordLifecycleActionHeartbeatInput, params, invalid);
  const target = selector(input);
  asValidationError(() => ctx.state.autoScaling.heartbeat(target, ctx.state.now()));
  return {};
}

/** The reconciler's sweep needs the terminate hook's name to complete an action it found. */
function describeLifecycleHooks(params: unknown, ctx: RequestContext): Record<string, QueryResultValue> {
  const input = parseInput(DescribeLifecycleHooksInput, params, invalid);
  const hooks = ctx.state.autoScaling.hooksOf(input.AutoScalingGroupName);
  if (hooks === undefined) throw new AwsError('ValidationError', `Group ${input.AutoScalingGroupName} not found`);
  const wanted = new Set(input.LifecycleHookNames ?? []);
  return {
    LifecycleHooks: hooks
      .filter((h) => wanted.size === 0 || wanted.has(h.name))
      .map((h) => ({
        LifecycleHookName: h.name,
        AutoScalingGroupName: input.AutoScalingGroupName,
        LifecycleTransition: h.transition,
        HeartbeatTimeout: Math.round(h.heartbeatTimeoutMs / 1000),
        // AWS: 100 × HeartbeatTimeout, capped at 48 hours.
        GlobalTimeout: Math.min(Math.round(h.heartbeatTimeoutMs / 10), 172_800),
        DefaultResult: h.defaultResult,
      })),
  };
}

function setInstanceHealth(params: unknown, ctx: RequestContext): null {
  const input = parseInput(SetInstanceHealthInput, params, invalid);
  const status =
    input.HealthStatus === 'Healthy' ? 'HEALTHY' : input.HealthStatus === 'Unhealthy' ? 'UNHEALTHY' : undefined;
  if (!status)
    throw new AwsError(
      'ValidationError',
      `Invalid health status '${input.HealthStatus}'. Valid values are Healthy and Unhealthy.`,
    );
  const member = ctx.state.autoScaling.setHealth(
    input.InstanceId,
    status,
    ctx.state.now(),
    input.ShouldRespectGracePeriod,
  );
  if (!member)
    throw new AwsError(
      'ValidationError',
      `Instance Id not found - No managed instance found for instance ID: ${input.InstanceId}`,
    );
  return null;
}

/** The group a tag names, which must exist (Auto Scaling tags only groups here). */
function taggedGroup(
  ctx: RequestContext,
  tag: { readonly ResourceId: string; readonly ResourceType?: string },
): string {
  if (tag.ResourceType !== undefined && tag.ResourceType !== 'auto-scaling-group')
    throw new AwsError('ValidationError', `Invalid resource type ${tag.ResourceType}: only auto-scaling-group`);
  if (!ctx.state.autoScaling.hasGroup(tag.ResourceId))
    throw new AwsError('ValidationError', `AutoScalingGroup name not found - ${tag.ResourceId}`);
  return tag.ResourceId;
}

/** CreateOrUpdateTags: each tag set on its group (the emulator keeps a group's tags, not their PropagateAtLaunch). */
function createOrUpdateTags(params: unknown, ctx: RequestContext): null {
  const input = parseInput(CreateOrUpdateTagsInput, params, invalid);
  const store = ctx.state.autoScaling;
  for (const tag of input.Tags) {
    const group = taggedGroup(ctx, tag);
    store.tagGroup(group, { ...(store.group(group)?.tags ?? {}), [tag.Key]: tag.Value ?? '' });
  }
  return null;
}

/** DeleteTags: each named key goes from its group (a key it does not have is no error). */
function deleteTags(params: unknown, ctx: RequestContext): null {
  const input = parseInput(DeleteTagsInput, params, invalid);
  const store = ctx.state.autoScaling;
  for (const tag of input.Tags) {
    const group = taggedGroup(ctx, tag);
    const tags = { ...(store.group(group)?.tags ?? {}) };
    if (tag.Key !== undefined) delete tags[tag.Key];
    store.tagGroup(group, tags);
  }
  return null;
}

export const autoScalingService: AwsQueryService = {
  name: 'autoscaling',
  protocol: 'query',
  xmlns: 'http://autoscaling.amazonaws.com/doc/2011-01-01/',
  throttlingError: () => new AwsError('Throttling', 'Rate exceeded'),
  operations: {
    DescribeAutoScalingInstances: describeAutoScalingInstances,
    DescribeAutoScalingGroups: describeAutoScalingGroups,
    DescribeWarmPool: describeWarmPool,
    CompleteLifecycleAction: completeLifecycleAction,
    RecordLifecycleActionHeartbeat: recordLifecycleActionHeartbeat,
    SetInstanceHealth: setInstanceHealth,
    DescribeLifecycleHooks: describeLifecycleHooks,
    SuspendProcesses: suspendProcesses,
    CreateOrUpdateTags: createOrUpdateTags,
    DeleteTags: deleteTags,
    ResumeProcesses: resumeProcesses,
  },
};
