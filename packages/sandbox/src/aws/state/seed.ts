import * as z from 'zod';
import { regionOfZone } from '@ec2-node-reconciler/model/provider-id.js';
import { DurationSchema } from '@ec2-node-reconciler/model/duration.js';
import { InstanceIdSchema } from '@ec2-node-reconciler/model/instance-id.js';
import { INSTANCE_STATES } from '@ec2-node-reconciler/model/instance-states.js';
import { LIFECYCLE_STATES } from './autoscaling.js';

/** A duration as the scenario format writes it (`30s`, `5m`, `2h`, `3d`) or plain milliseconds. */
const Duration = z.union([DurationSchema, z.number().int().nonnegative()]);

export const SCHEDULED_EVENT_CODES = [
  'instance-reboot',
  'system-reboot',
  'system-maintenance',
  'instance-retirement',
  'instance-stop',
] as const;

/** An availability zone of any form: standard, Local Zone or Wavelength Zone. */
export const ZoneSchema = z.string().refine((zone) => regionOfZone(zone) !== undefined, {
  message: 'must be an availability zone such as us-east-1a, us-east-1-bos-1a or us-east-1-wl1-bos-wlz-1',
});

/** An Auto Scaling group's name, as Auto Scaling allows it. */
export const GroupNameSchema = z.string().min(1).max(255);

/** A lifecycle hook's name, as Auto Scaling allows it ([A-Za-z0-9\-_/]+, at most 255). */
export const HookNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9\-_/]+$/, { message: 'must be letters, digits, -, _ and / only' })
  .max(255);

/** A hook's HeartbeatTimeout, as Auto Scaling allows it. */
export const isHeartbeatTimeout = (ms: number): boolean => ms >= 30_000 && ms <= 7_200_000;
export const HEARTBEAT_TIMEOUT_RANGE = 'must be between 30s and 2h';

/**
 * One instance as a scenario file describes it (shared/scenario-format.md); times are relative to
 * the clock when seeded. Unknown keys are rejected so a typo in a scenario never passes silently.
 */
export const SeedInstanceSchema = z.strictObject({
  id: InstanceIdSchema,
  /** `absent`: EC2 does not know the id; nothing is stored. */
  state: z.enum([...INSTANCE_STATES, 'absent']),
  zone: ZoneSchema,
  /** Default: derived from the id (`ip-10-….ec2.internal` in us-east-1, `….<region>.compute.internal` elsewhere). */
  privateDnsName: z.string().min(1).optional(),
  launchedAgo: Duration.optional(),
  tags: z.record(z.string(), z.string()).optional(),
  spot: z.boolean().optional(),
  autoScaling: z
    .strictObject({
      group: GroupNameSchema,
      lifecycleState: z.enum(LIFECYCLE_STATES).optional(),
      hook: HookNameSchema.optional(),
      token: z.string().min(1).optional(),
      /** The hook's HeartbeatTimeout (30 s – 2 h, as Auto Scaling allows); default: the emulator's timing. */
      heartbeatTimeout: Duration.refine(isHeartbeatTimeout, { message: HEARTBEAT_TIMEOUT_RANGE }).optional(),
      /** The result the group applies itself when the hook lapses (default ABANDON). */
      defaultResult: z.enum(['CONTINUE', 'ABANDON']).optional(),
      /** The hook's transition; default: launching for a Pending member, else terminating. */
      hookTransition: z.enum(['launching', 'terminating']).optional(),
    })
    .optional(),
  scheduledEvents: z
    .array(
      z.strictObject({
        code: z.enum(SCHEDULED_EVENT_CODES),
        /** A duration from the seeding time. */
        notBefore: Duration,
        notAfter: Duration.optional(),
        description: z.string().optional(),
      }),
    )
    .optional(),
  /** EC2 reads miss the instance until this long after seeding. */
  visibleAfter: Duration.optional(),
  // Beyond the scenario format, for tests that need a particular shape.
  instanceType: z.string().min(1).optional(),
  imageId: z.string().min(1).optional(),
  privateIpAddress: z.ipv4().optional(),
});
export type SeedInstance = z.input<typeof SeedInstanceSchema>;

export const CLUSTER_STATUSES = ['CREATING', 'ACTIVE', 'DELETING', 'FAILED', 'UPDATING', 'PENDING'] as const;

/** An EKS cluster's name, as EKS allows it. */
export const ClusterNameSchema = z
  .string()
  .max(100)
  .regex(/^[0-9A-Za-z][A-Za-z0-9\-_]*$/, { message: 'must be an EKS cluster name' });

export const SeedClusterSchema = z.strictObject({
  name: ClusterNameSchema,
  /** The Kubernetes API server (the Kubernetes emulator's URL). */
  endpoint: z.url(),
  /** Base64 PEM of the cluster CA. Default: a placeholder certificate. */
  certificateAuthorityData: z.string().min(1).optional(),
  status: z.enum(CLUSTER_STATUSES).optional(),
  version: z
    .string()
    .regex(/^\d+\.\d+$/)
    .optional(),
  platformVersion: z.string().optional(),
  createdAgo: Duration.optional(),
  roleArn: z.string().optional(),
  authenticationMode: z.enum(['API', 'API_AND_CONFIG_MAP', 'CONFIG_MAP']).optional(),
  tags: z.record(z.string(), z.string()).optional(),
});
export type SeedCluster = z.input<typeof SeedClusterSchema>;

export const SeedStateMachineSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(80)
    .regex(/^[A-Za-z0-9\-_]+$/, { message: 'must be a state machine name' }),
  type: z.enum(['STANDARD', 'EXPRESS']).optional(),
});
export type SeedStateMachine = z.input<typeof SeedStateMachineSchema>;

/**
 * An Auto Scaling group's own tags, which IAM conditions on group actions read
 * (`autoscaling:ResourceTag/…`). Beyond the scenario format: without it a group carries the cluster
 * tags of its members (AutoScalingStore.inheritTags), as EKS managed node groups and eksctl tag them.
 */
export const SeedAutoScalingGroupSchema = z.strictObject({
  name: z.string().min(1).max(255),
  tags: z.record(z.string(), z.string()),
});
export type SeedAutoScalingGroup = z.input<typeof SeedAutoScalingGroupSchema>;

/** Everything the emulator can be seeded with at once (the AWS half of a scenario). */
export interface AwsSeed {
  /** Seeded before the instances, so explicit group tags win over those derived from members. */
  readonly autoScalingGroups?: readonly SeedAutoScalingGroup[];
  readonly instances?: readonly SeedInstance[];
  readonly clusters?: readonly SeedCluster[];
  readonly stateMachines?: readonly SeedStateMachine[];
  readonly eventBuses?: readonly string[];
}

/** Parses one seed value, naming the path of the first bad key as the scenario loader reports it. */
export function parseSeed<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${[what, ...i.path.map(String)].join('.')}: ${i.message}`);
  throw new Error(`seeding the AWS emulator: ${problems.join('; ')}`);
}
