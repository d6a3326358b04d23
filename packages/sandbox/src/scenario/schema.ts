// The scenario file format v1.2 (docs/scenarios.md), exactly: unknown keys are errors.
import * as z from 'zod';
import { CONDITIONS } from '@ec2-node-reconciler/model/condition.js';
import { DurationSchema } from '@ec2-node-reconciler/model/duration.js';
import { InstanceIdSchema } from '@ec2-node-reconciler/model/instance-id.js';
import { REPAIR_CONDITIONS } from '@ec2-node-reconciler/model/node-conditions.js';
import { SettingsSchema } from '@ec2-node-reconciler/model/contract/settings.js';
import { partitionOfRegion } from '@ec2-node-reconciler/model/partition.js';
import { LIFECYCLE_STATES } from '../aws/state/autoscaling.js';
import { membershipProblem } from '../aws/state/membership.js';
import {
  ClusterNameSchema,
  GroupNameSchema,
  HEARTBEAT_TIMEOUT_RANGE,
  HookNameSchema,
  isHeartbeatTimeout,
  ZoneSchema,
} from '../aws/state/seed.js';

const Labels = z.record(z.string(), z.string());
const Duration = DurationSchema;

const ScheduledEventSchema = z
  .object({
    code: z.enum(['instance-reboot', 'system-reboot', 'system-maintenance', 'instance-retirement', 'instance-stop']),
    notBefore: Duration,
    notAfter: Duration.optional(),
    description: z.string().optional(),
  })
  .strict();

const InstanceSchema = z
  .object({
    id: InstanceIdSchema,
    state: z
      .enum(['pending', 'running', 'shutting-down', 'terminated', 'stopping', 'stopped', 'absent'])
      .default('running'),
    zone: ZoneSchema,
    privateDnsName: z.string().min(1).optional(),
    launchedAgo: Duration.default(3_600_000),
    tags: Labels.default({}),
    spot: z.boolean().default(false),
    autoScaling: z
      .object({
        group: GroupNameSchema,
        lifecycleState: z.enum(LIFECYCLE_STATES).default('InService'),
        hook: HookNameSchema.optional(),
        token: z.string().min(1).optional(),
        /** v1.1: the hook's heartbeat timeout (default 1h) and the result the group applies when it lapses (default ABANDON). */
        heartbeatTimeout: Duration.refine(isHeartbeatTimeout, { message: HEARTBEAT_TIMEOUT_RANGE }).optional(),
        defaultResult: z.enum(['CONTINUE', 'ABANDON']).optional(),
      })
      .strict()
      .optional(),
    scheduledEvents: z.array(ScheduledEventSchema).default([]),
    visibleAfter: Duration.optional(),
  })
  .strict()
  .superRefine((instance, ctx) => {
    // A membership Auto Scaling could not be in (seeding would refuse it, after the file was taken).
    if (instance.autoScaling === undefined || instance.state === 'absent') return;
    const problem = membershipProblem(instance.autoScaling, instance.state);
    if (problem !== undefined)
      ctx.addIssue({ code: 'custom', path: ['autoScaling', problem.key], message: problem.message });
  });

const TaintSchema = z
  .object({
    key: z.string().min(1),
    value: z.string().optional(),
    effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
  })
  .strict();

const ConditionStatusSchema = z.enum(['True', 'False', 'Unknown']);

/** v1.1 (issue #19): conditions with their age, e.g. the node monitoring agent's `KernelReady: { status: "False", since: 35m }`. */
const NodeConditionsSchema = z.partialRecord(
  z.enum(REPAIR_CONDITIONS),
  z.object({ status: ConditionStatusSchema, since: Duration }).strict(),
);

const NodeSchema = z
  .object({
    name: z.string().min(1),
    providerID: z.string().optional(),
    createdAgo: Duration.default(3_600_000),
    /** Default "True" (unless conditions.Ready says otherwise). */
    ready: ConditionStatusSchema.optional(),
    heartbeatAgo: z.union([z.literal('none'), Duration]).default(5_000),
    unschedulable: z.boolean().default(false),
    labels: Labels.default({}),
    annotations: Labels.default({}),
    taints: z.array(TaintSchema).default([]),
    heartbeating: z.boolean().optional(),
    conditions: NodeConditionsSchema.default({}),
  })
  .strict()
  .refine((n) => n.ready === undefined || n.conditions.Ready === undefined, {
    message: 'set Ready either with ready (and heartbeatAgo) or here, not both',
    path: ['conditions', 'Ready'],
  });

const OWNER_PATTERN = /^(none|[A-Za-z]+\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/;

const PodSchema = z
  .object({
    name: z.string().min(1),
    namespace: z.string().min(1).default('default'),
    node: z.string().min(1),
    labels: Labels.default({}),
    owner: z
      .string()
      .regex(OWNER_PATTERN, { message: 'must be Kind/name (e.g. ReplicaSet/web-6d4f) or none' })
      .default('none'),
    mirror: z.boolean().default(false),
    emptyDir: z.boolean().default(false),
    phase: z.enum(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']).default('Running'),
    terminationGracePeriodSeconds: z.number().int().min(0).default(30),
  })
  .strict();

const IntOrPercent = z.union([z.number().int().min(0), z.string().regex(/^\d+%$/)]);
const PdbSchema = z
  .object({
    name: z.string().min(1),
    namespace: z.string().min(1).default('default'),
    selector: Labels,
    minAvailable: IntOrPercent.optional(),
    maxUnavailable: IntOrPercent.optional(),
  })
  .strict()
  .refine((p) => (p.minAvailable === undefined) !== (p.maxUnavailable === undefined), {
    message: 'set exactly one of minAvailable and maxUnavailable',
  });

const EventStepSchema = z
  .object({
    event: z.union([
      z.object({ file: z.string().min(1) }).strict(),
      z.object({ inline: z.record(z.string(), z.unknown()) }).strict(),
    ]),
  })
  .strict();
/** v1.2: many events, each put on the bus at its own `time` (a storm), without waiting for one to be handled before the next. */
const EventsStepSchema = z
  .object({
    events: z.union([
      z.object({ file: z.string().min(1) }).strict(),
      z.object({ inline: z.array(z.record(z.string(), z.unknown())).min(1) }).strict(),
    ]),
  })
  .strict();
const StepSchema = z.union([
  EventStepSchema,
  EventsStepSchema,
  z.object({ sweep: z.object({}).strict().nullable() }).strict(),
  z.object({ advance: Duration }).strict(),
  z.object({ settle: z.object({}).strict().nullable() }).strict(),
  // v1.1: the CLI's `drain` command, and an operator's `kubectl cordon` / `kubectl uncordon`.
  z
    .object({
      drain: z
        .object({
          node: z.string().min(1),
          reason: z.string().min(1).optional(),
          // The operator's process dies this long after the drain started (Ctrl-C): its record stays as it was.
          killAfter: Duration.optional(),
          // The drain runs on while the next steps do (the operator's terminal), instead of the step waiting for its end.
          background: z.boolean().optional(),
        })
        .strict(),
    })
    .strict(),
  z.object({ cordon: z.string().min(1) }).strict(),
  z.object({ uncordon: z.string().min(1) }).strict(),
  // v1.1 (issue #19): the node's kubelet or monitoring agent posts a condition now.
  z
    .object({
      condition: z
        .object({ node: z.string().min(1), type: z.enum(REPAIR_CONDITIONS), status: ConditionStatusSchema })
        .strict(),
    })
    .strict(),
]);

/** v1.1: `service:Operation` (IAM action names) or `kube:VERB /path` with `*` for one path segment. */
const FAULT_API = /^(?:[a-z0-9-]+:[A-Za-z0-9]+|kube:(?:GET|POST|PUT|PATCH|DELETE) \/\S*)$/;
const FaultSchema = z
  .object({
    api: z.string().regex(FAULT_API, {
      message:
        'must be service:Operation (e.g. ec2:DescribeInstances) or kube:VERB /path (e.g. kube:PATCH /api/v1/nodes/*)',
    }),
    status: z.number().int().min(400).max(599).default(500),
    code: z.string().min(1).optional(),
    times: z.number().int().min(1).optional(),
    from: Duration.optional(),
    until: Duration.optional(),
  })
  .strict()
  .refine((f) => f.from === undefined || f.until === undefined || f.until > f.from, {
    message: 'until must be after from',
    path: ['until'],
  });

const NODE_WORDS = ['deleted', 'present', 'cordoned', 'drained', 'untouched'] as const;
const NodeExpectSchema = z.union([
  z.enum(NODE_WORDS),
  z
    .object({
      exists: z.boolean().optional(),
      unschedulable: z.boolean().optional(),
      podsLeft: z.number().int().min(0).optional(),
      taints: z.array(z.string()).optional(),
    })
    .strict(),
]);

const ExpectSchema = z
  .object({
    nodes: z.record(z.string(), NodeExpectSchema).optional(),
    lifecycleActions: z
      .array(
        z
          .object({
            instance: InstanceIdSchema,
            result: z.enum(['CONTINUE', 'ABANDON']),
            /** v1.1: `timeout` for a result the group applied itself when the hook lapsed; absent: completed by the reconciler. */
            by: z.literal('timeout').optional(),
            /** v1.3: the completion came no earlier than this, from the scenario's start (a drain's deadline, say). */
            notBefore: Duration.optional(),
          })
          .strict(),
      )
      .optional(),
    conditions: z.partialRecord(z.enum(CONDITIONS), z.number().int().min(0)).optional(),
    deletions: z.number().int().min(0).optional(),
    evictionsBlocked: z.number().int().min(0).optional(),
    drainsStarted: z.number().int().min(0).optional(),
    deadLetters: z.number().int().min(0).optional(),
    /** Per node, per Event reason: how many times the Event was told (the sum of its Events' counts; 0: never). */
    events: z.record(z.string().min(1), z.record(z.string().min(1), z.number().int().min(0))).optional(),
    /** v1.1: calls refused by the deployed IAM policies or the shipped RBAC. */
    denied: z.number().int().min(0).optional(),
    // v1.1 (issue #19): the machines the reconciler had replaced (drained, then marked Unhealthy for their group), or [] for none.
    repairs: z.array(z.object({ instance: InstanceIdSchema, action: z.enum(['replace']) }).strict()).optional(),
  })
  .strict();

/**
 * Project extension (not in the public format v1.1): how the scenario meets the chaos differential
 * (test/chaos.test.ts). `deadlineBound` names the outcomes a fault may change because they are
 * bound to a deadline that a fault's delay can outlast (a spot warning's two minutes, say): a Node
 * (with its pods and its machine's lifecycle action), or an instance. Every entry says why.
 */
const DeadlineBoundSchema = z
  .object({
    node: z.string().min(1).optional(),
    instance: InstanceIdSchema.optional(),
    why: z.string().min(10, { message: 'say which deadline a fault can outlast, and why' }),
  })
  .strict()
  .refine((d) => d.node !== undefined || d.instance !== undefined, { message: 'name a node or an instance' });
const ChaosSchema = z.object({ deadlineBound: z.array(DeadlineBoundSchema).min(1) }).strict();

export const ScenarioSchema = z
  .object({
    name: z.string().min(1),
    start: z.iso.datetime().optional(),
    cluster: z
      .object({
        name: ClusterNameSchema,
        region: z.string().refine((region) => partitionOfRegion(region) !== undefined, {
          message: 'must be an AWS region such as us-east-1',
        }),
        accountId: z.string().regex(/^\d{12}$/, { message: 'must be a 12-digit AWS account id' }),
      })
      .strict(),
    settings: SettingsSchema.partial().optional(),
    instances: z.array(InstanceSchema).default([]),
    nodes: z.array(NodeSchema).default([]),
    pods: z.array(PodSchema).default([]),
    pdbs: z.array(PdbSchema).default([]),
    steps: z.array(StepSchema).default([{ sweep: {} }]),
    faults: z.array(FaultSchema).default([]),
    /**
     * v1.2: virtual milliseconds each request of the deployed functions takes to AWS and to the
     * Kubernetes API (network and server time); default 0: requests take no virtual time.
     */
    latency: z
      .object({
        aws: z.number().int().min(0).max(60_000).default(0),
        kube: z.number().int().min(0).max(60_000).default(0),
      })
      .strict()
      .optional(),
    expect: ExpectSchema.optional(),
    chaos: ChaosSchema.optional(),
  })
  .strict();

export type Scenario = z.output<typeof ScenarioSchema>;
export type ScenarioInstance = Scenario['instances'][number];
export type ScenarioNode = Scenario['nodes'][number];
export type ScenarioPod = Scenario['pods'][number];
export type ScenarioPdb = Scenario['pdbs'][number];
export type ScenarioStep = Scenario['steps'][number];
export type ScenarioExpect = NonNullable<Scenario['expect']>;
export type ScenarioFault = Scenario['faults'][number];
export type NodeExpectation = z.output<typeof NodeExpectSchema>;
export type DeadlineBound = z.output<typeof DeadlineBoundSchema>;
