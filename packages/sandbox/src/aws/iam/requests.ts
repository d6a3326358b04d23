// What IAM is asked for each call the emulator serves: the action, the resources and the condition
// keys, as the Service Authorization Reference lists them ("Actions, resources, and condition keys
// for Amazon EC2 / Amazon EC2 Auto Scaling / Amazon EKS / AWS Step Functions / Amazon EventBridge /
// AWS Lambda / AWS STS"). One entry per operation; an operation without one is authorized as
// `<service>:<Operation>` on `*`, which is right for every action with no resource type.
//
// A call that acts on several resources whose condition keys differ (CreateTags on instances with
// different tags, PutEvents entries with different sources) becomes one check per resource: IAM
// evaluates each resource in its own context, and the call needs every one allowed.
import * as z from 'zod';
import type { ServiceName } from '../services/names.js';
import { autoScalingGroupUuid } from '../state/autoscaling.js';
import type { AwsState } from '../state/index.js';
import type { CallerIdentity } from '../sigv4.js';
import { iamAction } from './actions.js';
import type { ContextValue } from './conditions.js';
import { requestTagKeys, resourceTagKeys } from './context.js';
import { partitionOf } from '../partitions.js';

/** One authorization IAM makes for a call (the caller is added by whoever asks). */
export interface IamCheck {
  readonly action: string;
  /** ARNs the action is on; `['*']` for actions with no resource type. */
  readonly resources: readonly string[];
  /** Service condition keys (`aws:ResourceTag/…`, `aws:TagKeys`, `events:source`, …). */
  readonly context: Readonly<Record<string, ContextValue>>;
}

/** What a mapping may read of the account the call is made in. */
export type IamWorld = Pick<
  AwsState,
  'region' | 'accountId' | 'instances' | 'autoScaling' | 'clusters' | 'accessEntries' | 'queues' | 'stacks'
>;

type Mapping = (params: unknown, world: IamWorld, action: string) => readonly IamCheck[];

export { partitionOf };

const arnIn = (world: IamWorld, service: string, resource: string): string =>
  `arn:${partitionOf(world.region)}:${service}:${world.region}:${world.accountId}:${resource}`;

/**
 * `arn:<partition>:autoscaling:<region>:<account>:autoScalingGroup:<uuid>:autoScalingGroupName/<name>`.
 * A group the account does not have gets the UUID its name would have: a policy naming the group
 * lets the call through to the ValidationError Auto Scaling answers, a tag condition does not.
 */
export function autoScalingGroupArn(world: IamWorld, name: string): string {
  const uuid = world.autoScaling.group(name)?.uuid ?? autoScalingGroupUuid(name);
  return arnIn(world, 'autoscaling', `autoScalingGroup:${uuid}:autoScalingGroupName/${name}`);
}

const unscoped: Mapping = (_params, _world, action) => [{ action, resources: ['*'], context: {} }];

/**
 * Reads the fields a mapping needs. A call whose fields do not parse is authorized against `*`
 * with no condition keys (never skipped): the handler then answers its validation error, or IAM
 * refuses it when the caller is only allowed on particular resources.
 */
function withParams<T>(
  schema: z.ZodType<T>,
  map: (input: T, world: IamWorld, action: string) => readonly IamCheck[],
): Mapping {
  return (params, world, action) => {
    const parsed = schema.safeParse(params);
    return parsed.success ? map(parsed.data, world, action) : unscoped(params, world, action);
  };
}

// EC2 --------------------------------------------------------------------------------------------

/** Every EC2 action supports ec2:Region. */
const ec2Keys = (world: IamWorld): Record<string, ContextValue> => ({ 'ec2:Region': world.region });

/** An instance's ARN and the keys of the `instance` resource type: its tags and a few of its attributes. */
function instanceCheck(
  world: IamWorld,
  action: string,
  id: string,
  requestKeys: Readonly<Record<string, ContextValue>>,
): IamCheck {
  const record = world.instances.get(id);
  const attributes: Record<string, ContextValue> = record
    ? {
        ...resourceTagKeys('ec2', Object.fromEntries(record.tags)),
        'ec2:InstanceID': record.id,
        'ec2:InstanceType': record.instanceType,
        'ec2:AvailabilityZone': record.zone,
        'ec2:Tenancy': 'default',
        'ec2:RootDeviceType': 'ebs',
      }
    : {};
  return {
    action,
    resources: [arnIn(world, 'ec2', `instance/${id}`)],
    context: { ...ec2Keys(world), ...attributes, ...requestKeys },
  };
}

const ec2Unscoped: Mapping = (_params, world, action) => [{ action, resources: ['*'], context: ec2Keys(world) }];

const Ids = z.array(z.string());

const createTags = withParams(
  z.object({ ResourceId: Ids, Tag: z.array(z.object({ Key: z.string(), Value: z.string().optional() })) }),
  (input, world, action) => {
    const keys = requestTagKeys(Object.fromEntries(input.Tag.map((t) => [t.Key, t.Value ?? ''])));
    return input.ResourceId.map((id) => instanceCheck(world, action, id, keys));
  },
);

const deleteTags = withParams(
  z.object({
    ResourceId: Ids,
    Tag: z.array(z.object({ Key: z.string().optional(), Value: z.string().optional() })).optional(),
  }),
  (input, world, action) => {
    // DeleteTags names the keys it removes (aws:TagKeys) and, where given, the values (aws:RequestTag).
    const tags = (input.Tag ?? []).flatMap((t) => (t.Key === undefined ? [] : [t]));
    const keys: Record<string, ContextValue> = { 'aws:TagKeys': tags.map((t) => t.Key ?? '') };
    for (const t of tags) if (t.Key !== undefined && t.Value !== undefined) keys[`aws:RequestTag/${t.Key}`] = t.Value;
    return input.ResourceId.map((id) => instanceCheck(world, action, id, input.Tag === undefined ? {} : keys));
  },
);

const onInstances = withParams(z.object({ InstanceId: Ids }), (input, world, action) =>
  input.InstanceId.map((id) => instanceCheck(world, action, id, {})),
);

// Auto Scaling -----------------------------------------------------------------------------------

/** A group action: the group's ARN, and its tags as `autoscaling:ResourceTag/…` and `aws:ResourceTag/…`. */
function groupCheck(world: IamWorld, action: string, name: string): IamCheck {
  return {
    action,
    resources: [autoScalingGroupArn(world, name)],
    context: resourceTagKeys('autoscaling', world.autoScaling.group(name)?.tags ?? {}),
  };
}

const onNamedGroup = withParams(z.object({ AutoScalingGroupName: z.string() }), (input, world, action) => [
  groupCheck(world, action, input.AutoScalingGroupName),
]);

/** Auto Scaling's CreateOrUpdateTags and DeleteTags: authorized on each group a tag names, with the keys and values they set. */
const onTaggedGroups = withParams(
  z.object({
    Tags: z.array(z.object({ ResourceId: z.string(), Key: z.string().optional(), Value: z.string().optional() })),
  }),
  (input, world, action) => {
    const tags = Object.fromEntries(input.Tags.flatMap((t) => (t.Key === undefined ? [] : [[t.Key, t.Value ?? '']])));
    return [...new Set(input.Tags.map((t) => t.ResourceId))].map((group) => {
      const check = groupCheck(world, action, group);
      return { ...check, context: { ...check.context, ...requestTagKeys(tags) } };
    });
  },
);

/** SetInstanceHealth names an instance: it is authorized on the instance's group (the group is unknown for a non-member: `*`). */
const onMembersGroup = withParams(z.object({ InstanceId: z.string() }), (input, world, action) => {
  const group = world.autoScaling.member(input.InstanceId)?.group;
  return group === undefined ? unscoped(input, world, action) : [groupCheck(world, action, group)];
});

// EKS, Lambda (restJson: the path's captures) ----------------------------------------------------

const RestParams = z.object({ path: z.array(z.string()), query: z.record(z.string(), z.string()).optional() });

const describeCluster = withParams(RestParams, (input, world, action) => {
  const name = input.path[0] ?? '';
  return [
    {
      action,
      resources: [arnIn(world, 'eks', `cluster/${name}`)],
      context: resourceTagKeys('eks', world.clusters.get(name)?.tags ?? {}),
    },
  ];
});

/** A name, `name:qualifier`, a partial ARN `<account>:function:name[:qualifier]` or a full ARN. */
const FUNCTION_REF =
  /^(?:arn:(aws[\w-]*):lambda:([a-z0-9-]+):(\d{12}):function:|(\d{12}):function:)?([A-Za-z0-9_-]+)(?::([\w$-]+))?$/;

/**
 * The function's ARN, unqualified unless the call names a version or alias (path or `Qualifier`):
 * IAM then checks the qualified ARN, which is why CDK's grantInvoke allows both `fn` and `fn:*`.
 */
const invokeFunction = withParams(RestParams, (input, world, action) => {
  const ref = input.path[0] ?? '';
  const match = FUNCTION_REF.exec(ref);
  if (!match) return [{ action, resources: [arnIn(world, 'lambda', `function:${ref}`)], context: {} }];
  const [, partition, region, account, partialAccount, name = '', pathQualifier] = match;
  const qualifier = pathQualifier ?? input.query?.Qualifier;
  const base = `arn:${partition ?? partitionOf(world.region)}:lambda:${region ?? world.region}:${account ?? partialAccount ?? world.accountId}:function:${name}`;
  return [{ action, resources: [qualifier === undefined ? base : `${base}:${qualifier}`], context: {} }];
});

// EventBridge ------------------------------------------------------------------------------------

const BUS_ARN = /^arn:aws[\w-]*:events:[a-z0-9-]+:\d{12}:event-bus\/.+$/;

/** Each entry is authorized on its bus (`default` when it names none) with its `events:source` and `events:detail-type`. */
const putEvents = withParams(
  z.object({
    Entries: z
      .array(
        z.object({
          EventBusName: z.string().optional(),
          Source: z.string().optional(),
          DetailType: z.string().optional(),
        }),
      )
      .min(1),
  }),
  (input, world, action) => {
    const checks = new Map<string, IamCheck>();
    for (const entry of input.Entries) {
      const bus = entry.EventBusName ?? 'default';
      const resource = BUS_ARN.test(bus) ? bus : arnIn(world, 'events', `event-bus/${bus}`);
      const context: Record<string, ContextValue> = {};
      if (entry.Source !== undefined) context['events:source'] = entry.Source;
      if (entry.DetailType !== undefined) context['events:detail-type'] = entry.DetailType;
      // Entries alike are one check: a batch of ten identical events is one decision, as it reads.
      checks.set(JSON.stringify([resource, context]), { action, resources: [resource], context });
    }
    return [...checks.values()];
  },
);

// Step Functions ---------------------------------------------------------------------------------

const onStateMachine = withParams(z.object({ stateMachineArn: z.string() }), (input, _world, action) => [
  { action, resources: [input.stateMachineArn], context: {} },
]);
const onExecution = withParams(z.object({ executionArn: z.string() }), (input, _world, action) => [
  { action, resources: [input.executionArn], context: {} },
]);

// What an operator reads a deployment with (doctor, docs/operations.md's checks) -------------------------

/** The EKS access-entry calls are on the cluster (Create, List) or on the entry itself (Describe, Delete). */
const onCluster = withParams(RestParams, (input, world, action) => [
  { action, resources: [arnIn(world, 'eks', `cluster/${input.path[0] ?? ''}`)], context: {} },
]);
const onAccessEntry = withParams(RestParams, (input, world, action) => {
  const [cluster = '', principal = ''] = input.path;
  const entry = world.accessEntries.get(cluster, principal);
  return [{ action, resources: [entry?.accessEntryArn ?? arnIn(world, 'eks', `cluster/${cluster}`)], context: {} }];
});
/** GetFunctionConfiguration: the function's ARN, as Invoke. */
const onFunction = invokeFunction;
const onRule = withParams(
  z.object({ Name: z.string(), EventBusName: z.string().optional() }),
  (input, world, action) => [{ action, resources: [ruleArn(world, input.Name, input.EventBusName)], context: {} }],
);
const onTargetsRule = withParams(
  z.object({ Rule: z.string(), EventBusName: z.string().optional() }),
  (input, world, action) => [{ action, resources: [ruleArn(world, input.Rule, input.EventBusName)], context: {} }],
);
/** `rule/<name>` on the default bus, `rule/<bus>/<name>` on another. */
function ruleArn(world: IamWorld, name: string, bus: string | undefined): string {
  const busName = bus === undefined ? 'default' : (/event-bus\/(.+)$/.exec(bus)?.[1] ?? bus);
  return arnIn(world, 'events', busName === 'default' ? `rule/${name}` : `rule/${busName}/${name}`);
}
const onQueueUrl = withParams(z.object({ QueueUrl: z.string() }), (input, world, action) => [
  { action, resources: [world.queues.byUrl(input.QueueUrl)?.arn ?? '*'], context: {} },
]);
const onQueueName = withParams(z.object({ QueueName: z.string() }), (input, world, action) => [
  { action, resources: [arnIn(world, 'sqs', input.QueueName)], context: {} },
]);
const onSchedule = withParams(RestParams, (input, world, action) => [
  {
    action,
    resources: [arnIn(world, 'scheduler', `schedule/${input.query?.groupName ?? 'default'}/${input.path[0] ?? ''}`)],
    context: {},
  },
]);
const onLogGroup = withParams(
  z.object({ logGroupName: z.string().optional(), logGroupIdentifier: z.string().optional() }),
  (input, world, action) => {
    const name = input.logGroupName ?? input.logGroupIdentifier;
    if (name === undefined) return unscoped(input, world, action);
    return [
      { action, resources: [name.startsWith('arn:') ? name : arnIn(world, 'logs', `log-group:${name}`)], context: {} },
    ];
  },
);
const onStack = withParams(z.object({ StackName: z.string() }), (input, world, action) => [
  {
    action,
    resources: [world.stacks.get(input.StackName)?.id ?? arnIn(world, 'cloudformation', `stack/${input.StackName}/*`)],
    context: {},
  },
]);
/** IAM's ARNs have no region: `arn:aws:iam::<account>:role/<name>` (the role's path is not in the call). */
const onRole = withParams(z.object({ RoleName: z.string() }), (input, world, action) => [
  {
    action,
    resources: [`arn:${partitionOf(world.region)}:iam::${world.accountId}:role/${input.RoleName}`],
    context: {},
  },
]);
/** SimulatePrincipalPolicy is on the principal simulated. */
const onPolicySource = withParams(z.object({ PolicySourceArn: z.string() }), (input, _world, action) => [
  { action, resources: [input.PolicySourceArn], context: {} },
]);

/**
 * Every operation the emulator implements (and a few Step Functions reads a driver may add), by
 * `service:Operation`. `iam-requests.test.ts` fails when an implemented operation has no entry.
 */
const MAPPINGS: Readonly<Record<string, Mapping>> = {
  'ec2:DescribeInstances': ec2Unscoped,
  'ec2:DescribeInstanceStatus': ec2Unscoped,
  'ec2:DescribeTags': ec2Unscoped,
  'ec2:CreateTags': createTags,
  'ec2:DeleteTags': deleteTags,
  'ec2:TerminateInstances': onInstances,
  'autoscaling:DescribeAutoScalingInstances': unscoped,
  'autoscaling:DescribeAutoScalingGroups': unscoped,
  'autoscaling:DescribeWarmPool': unscoped,
  'autoscaling:DescribeLifecycleHooks': unscoped,
  'autoscaling:CompleteLifecycleAction': onNamedGroup,
  'autoscaling:RecordLifecycleActionHeartbeat': onNamedGroup,
  'autoscaling:SetInstanceHealth': onMembersGroup,
  'autoscaling:CreateOrUpdateTags': onTaggedGroups,
  'autoscaling:DeleteTags': onTaggedGroups,
  'autoscaling:SuspendProcesses': onNamedGroup,
  'autoscaling:ResumeProcesses': onNamedGroup,
  'eks:DescribeCluster': describeCluster,
  'sts:GetCallerIdentity': unscoped,
  'events:PutEvents': putEvents,
  'states:StartExecution': onStateMachine,
  'states:DescribeStateMachine': onStateMachine,
  'states:ListExecutions': onStateMachine,
  'states:DescribeExecution': onExecution,
  'states:StopExecution': onExecution,
  'states:GetExecutionHistory': onExecution,
  'states:DescribeStateMachineForExecution': onExecution,
  // SendTask* name a task token, not a resource: IAM checks them against `*`.
  'states:SendTaskSuccess': unscoped,
  'states:SendTaskFailure': unscoped,
  'states:SendTaskHeartbeat': unscoped,
  'lambda:Invoke': invokeFunction,
  'lambda:GetFunctionConfiguration': onFunction,
  'lambda:GetFunctionConcurrency': onFunction,
  'lambda:GetAccountSettings': unscoped,
  'lambda:ListEventSourceMappings': unscoped,
  'eks:CreateAccessEntry': onCluster,
  'eks:ListAccessEntries': onCluster,
  'eks:DescribeAccessEntry': onAccessEntry,
  'eks:DeleteAccessEntry': onAccessEntry,
  'events:DescribeRule': onRule,
  'events:EnableRule': onRule,
  'events:DisableRule': onRule,
  'events:ListTargetsByRule': onTargetsRule,
  'events:ListRuleNamesByTarget': unscoped,
  'sqs:GetQueueAttributes': onQueueUrl,
  'sqs:GetQueueUrl': onQueueName,
  'scheduler:GetSchedule': onSchedule,
  'logs:DescribeLogStreams': onLogGroup,
  'logs:FilterLogEvents': onLogGroup,
  'cloudformation:DescribeStacks': onStack,
  'iam:ListRolePolicies': onRole,
  'iam:GetRolePolicy': onRole,
  'iam:PutRolePolicy': onRole,
  'iam:DeleteRolePolicy': onRole,
  'iam:SimulatePrincipalPolicy': onPolicySource,
};

/** Whether `service:Operation` has its own entry (rather than the `*` default). */
export const hasIamMapping = (service: ServiceName, operation: string): boolean =>
  Object.hasOwn(MAPPINGS, `${service}:${operation}`);

/** The checks IAM makes for one call, in the account (and region) the call is made in. */
export function iamChecks(
  service: ServiceName,
  operation: string,
  params: unknown,
  world: IamWorld,
): readonly IamCheck[] {
  const action = iamAction(service, operation);
  const mapping = MAPPINGS[`${service}:${operation}`] ?? unscoped;
  return mapping(params, world, action);
}

/**
 * Global condition keys IAM sets on every request: who calls (`aws:PrincipalType`, `aws:userid`,
 * `aws:username` for a user; the authorizer adds `aws:PrincipalArn`/`aws:PrincipalAccount`), where
 * (`aws:RequestedRegion`: the signing region) and when (`aws:CurrentTime`, `aws:EpochTime`, on the
 * emulator's clock). The wire is plain HTTP locally, but it stands for AWS's TLS endpoints:
 * `aws:SecureTransport` is true.
 */
export function globalKeys(input: {
  readonly identity: CallerIdentity;
  readonly region: string;
  readonly now: number;
}): Record<string, ContextValue> {
  const { identity } = input;
  const user = /^arn:aws[\w-]*:iam::\d{12}:user\/(?:[^/]+\/)*([^/]+)$/.exec(identity.arn)?.[1];
  return {
    'aws:PrincipalType': identity.sessionName !== undefined ? 'AssumedRole' : user !== undefined ? 'User' : 'Unknown',
    'aws:userid': identity.userId,
    ...(user !== undefined ? { 'aws:username': user } : {}),
    'aws:RequestedRegion': input.region,
    'aws:CurrentTime': new Date(input.now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    'aws:EpochTime': Math.floor(input.now / 1000),
    'aws:SecureTransport': true,
  };
}
