// What a deployed world needs from the synthesized CloudFormation template: roles and their
// policies, functions (environment, timeout, reserved concurrency, async config), queues (visibility
// timeout, dead-letter queue, maxReceiveCount), EventBridge rules and targets, SQS event source
// mappings, the state machine definitions, and the schedules. Every value comes out resolved
// (names and ARNs as CloudFormation would make them in `env`) and checked with zod.
import * as z from 'zod';
import { parsePolicy, type NamedPolicy } from '../aws/iam/policy.js';
import { Resolver, type DeployedResource, type DeploymentEnv } from './intrinsics.js';

export type { DeploymentEnv } from './intrinsics.js';

const TemplateSchema = z.object({
  Description: z.string().optional(),
  Outputs: z
    .record(
      z.string(),
      z.object({ Value: z.unknown(), Description: z.string().optional(), Export: z.unknown().optional() }),
    )
    .default({}),
  Resources: z.record(
    z.string(),
    z.object({
      Type: z.string(),
      Properties: z.record(z.string(), z.unknown()).optional(),
      DependsOn: z.union([z.string(), z.array(z.string())]).optional(),
      Metadata: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});

export interface RoleSpec {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  /** Service principals allowed to assume it (`lambda.amazonaws.com`, `states.amazonaws.com`, …). */
  readonly assumedBy: readonly string[];
  /** Inline policies and every AWS::IAM::Policy attached to it. */
  readonly policies: readonly NamedPolicy[];
  /** Managed policy ARNs (not evaluated: their documents are not in the template). */
  readonly managedPolicyArns: readonly string[];
}

const FunctionProps = z.object({
  FunctionName: z.string().optional(),
  Handler: z.string().optional(),
  Code: z.object({ S3Key: z.unknown().optional() }).loose().optional(),
  Runtime: z.string().optional(),
  Role: z.string(),
  Timeout: z.coerce.number().default(3),
  MemorySize: z.coerce.number().default(128),
  ReservedConcurrentExecutions: z.coerce.number().optional(),
  Environment: z.object({ Variables: z.record(z.string(), z.string()).default({}) }).optional(),
  Architectures: z.array(z.string()).optional(),
  Description: z.string().optional(),
  VpcConfig: z
    .object({ SubnetIds: z.array(z.string()).default([]), SecurityGroupIds: z.array(z.string()).default([]) })
    .optional(),
  LoggingConfig: z.object({ LogGroup: z.string().optional() }).loose().optional(),
});

export interface FunctionSpec {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly roleArn: string;
  readonly handler?: string;
  readonly runtime?: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  /** Undefined: no reservation (the function shares the account's unreserved concurrency). */
  readonly reservedConcurrency?: number;
  readonly environment: Readonly<Record<string, string>>;
  /** Asynchronous invocation (AWS::Lambda::EventInvokeConfig); Lambda's defaults when the template sets none. */
  readonly async: {
    readonly maximumRetryAttempts: number;
    readonly maximumEventAgeSeconds: number;
    readonly explicit: boolean;
  };
  /** Logical ids this function's resource waits for (DependsOn). */
  readonly dependsOn: readonly string[];
  /** The bundled code's directory in the cloud assembly (`aws:asset:path`), when the template was bundled. */
  readonly assetPath?: string;
  readonly description?: string;
  readonly architectures?: readonly string[];
  /** Where it runs, when in a VPC. */
  readonly vpc?: { readonly subnetIds: readonly string[]; readonly securityGroupIds: readonly string[] };
  /** Where Lambda writes the function's logs, as the function's role: its LoggingConfig, else `/aws/lambda/<name>`. */
  readonly logGroupName: string;
}

/** Lambda's documented defaults for asynchronous invocation: two retries, events kept six hours. */
export const LAMBDA_ASYNC_DEFAULTS = { maximumRetryAttempts: 2, maximumEventAgeSeconds: 21_600 } as const;

const QueueProps = z.object({
  QueueName: z.string().optional(),
  VisibilityTimeout: z.coerce.number().default(30),
  MessageRetentionPeriod: z.coerce.number().default(345_600),
  RedrivePolicy: z.object({ deadLetterTargetArn: z.string(), maxReceiveCount: z.coerce.number() }).optional(),
});

export interface QueueSpec {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly url: string;
  readonly visibilityTimeoutSeconds: number;
  readonly retentionSeconds: number;
  readonly deadLetter?: { readonly targetArn: string; readonly maxReceiveCount: number };
}

const RuleProps = z.object({
  Name: z.string().optional(),
  EventBusName: z.string().optional(),
  EventPattern: z.record(z.string(), z.unknown()).optional(),
  ScheduleExpression: z.string().optional(),
  State: z.string().default('ENABLED'),
  Description: z.string().optional(),
  Targets: z
    .array(
      z.object({
        Id: z.string(),
        Arn: z.string(),
        RoleArn: z.string().optional(),
        Input: z.string().optional(),
        DeadLetterConfig: z.object({ Arn: z.string() }).optional(),
        RetryPolicy: z
          .object({
            MaximumEventAgeInSeconds: z.coerce.number().optional(),
            MaximumRetryAttempts: z.coerce.number().optional(),
          })
          .optional(),
      }),
    )
    .default([]),
});

export interface RuleSpec {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly eventBusName: string;
  readonly eventPattern?: Readonly<Record<string, unknown>>;
  readonly enabled: boolean;
  readonly description?: string;
  readonly targets: readonly {
    readonly id: string;
    readonly arn: string;
    readonly roleArn?: string;
    readonly input?: string;
    readonly deadLetterArn?: string;
    /** EventBridge's defaults: 185 retries over 24 hours. */
    readonly maximumRetryAttempts: number;
    readonly maximumEventAgeSeconds: number;
  }[];
}

const EventSourceMappingProps = z.object({
  FunctionName: z.string(),
  EventSourceArn: z.string(),
  BatchSize: z.coerce.number().optional(),
  MaximumBatchingWindowInSeconds: z.coerce.number().optional(),
  FunctionResponseTypes: z.array(z.string()).default([]),
  ScalingConfig: z.object({ MaximumConcurrency: z.coerce.number().optional() }).optional(),
  Enabled: z.boolean().default(true),
});

export interface EventSourceMappingSpec {
  readonly logicalId: string;
  /** The function's name or ARN, as the template gives it. */
  readonly functionName: string;
  readonly eventSourceArn: string;
  /** SQS default: 10. */
  readonly batchSize: number;
  readonly batchingWindowSeconds: number;
  readonly reportBatchItemFailures: boolean;
  readonly maximumConcurrency?: number;
  readonly enabled: boolean;
}

const StateMachineProps = z.object({
  StateMachineName: z.string().optional(),
  StateMachineType: z.enum(['STANDARD', 'EXPRESS']).default('STANDARD'),
  RoleArn: z.string(),
  DefinitionString: z.string().optional(),
  Definition: z.record(z.string(), z.unknown()).optional(),
  LoggingConfiguration: z
    .object({
      Level: z.string().optional(),
      Destinations: z
        .array(z.object({ CloudWatchLogsLogGroup: z.object({ LogGroupArn: z.string() }).optional() }))
        .default([]),
    })
    .loose()
    .optional(),
});

export interface StateMachineSpec {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly type: 'STANDARD' | 'EXPRESS';
  readonly roleArn: string;
  /** The ASL definition, parsed. */
  readonly definition: Readonly<Record<string, unknown>>;
  /** The log groups its LoggingConfiguration sends execution logs to (none when logging is off). */
  readonly logDestinations: readonly string[];
}

const ScheduleProps = z.object({
  Name: z.string().optional(),
  GroupName: z.string().optional(),
  Description: z.string().optional(),
  ScheduleExpression: z.string(),
  ScheduleExpressionTimezone: z.string().optional(),
  State: z.string().default('ENABLED'),
  FlexibleTimeWindow: z.object({ Mode: z.string(), MaximumWindowInMinutes: z.coerce.number().optional() }),
  Target: z.object({
    Arn: z.string(),
    RoleArn: z.string(),
    Input: z.string().optional(),
    RetryPolicy: z
      .object({
        MaximumEventAgeInSeconds: z.coerce.number().optional(),
        MaximumRetryAttempts: z.coerce.number().optional(),
      })
      .optional(),
  }),
});

export interface ScheduleSpec {
  readonly logicalId: string;
  readonly name: string;
  /** `default` unless the template names a group. */
  readonly groupName: string;
  readonly arn: string;
  readonly description?: string;
  readonly flexibleTimeWindow: { readonly mode: string; readonly maximumWindowInMinutes?: number };
  readonly expression: string;
  readonly timezone?: string;
  readonly enabled: boolean;
  readonly targetArn: string;
  readonly roleArn: string;
  readonly input?: string;
  /** EventBridge Scheduler's defaults: 185 retries, 24 hours. */
  readonly maximumRetryAttempts: number;
  readonly maximumEventAgeSeconds: number;
}

export interface EventBusSpec {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
}

/** An EKS access entry: who the cluster's API server takes a principal for. */
export interface AccessEntrySpec {
  readonly logicalId: string;
  readonly clusterName: string;
  readonly principalArn: string;
  readonly kubernetesGroups: readonly string[];
  readonly username?: string;
  readonly type: string;
}

const AccessEntryProps = z.object({
  ClusterName: z.string(),
  PrincipalArn: z.string(),
  KubernetesGroups: z.array(z.string()).default([]),
  Username: z.string().optional(),
  Type: z.string().default('STANDARD'),
});

/** A stack output, its value resolved. */
export interface OutputSpec {
  readonly key: string;
  readonly value: string;
  readonly description?: string;
}

/** Everything of a deployed stack that the sandbox world runs. */
export interface Deployment {
  readonly env: DeploymentEnv;
  readonly description?: string;
  readonly outputs: readonly OutputSpec[];
  readonly roles: readonly RoleSpec[];
  readonly functions: readonly FunctionSpec[];
  readonly queues: readonly QueueSpec[];
  readonly rules: readonly RuleSpec[];
  readonly eventSourceMappings: readonly EventSourceMappingSpec[];
  readonly stateMachines: readonly StateMachineSpec[];
  readonly schedules: readonly ScheduleSpec[];
  readonly eventBuses: readonly EventBusSpec[];
  readonly accessEntries: readonly AccessEntrySpec[];
  /** A resource by logical id, as deployed (names, ARN). */
  resource(logicalId: string): DeployedResource;
}

const EVENTBRIDGE_RETRY_DEFAULTS = { maximumRetryAttempts: 185, maximumEventAgeSeconds: 86_400 } as const;

/**
 * The bundled code's directory in the assembly: the asset metadata when the app writes it, else the
 * directory CDK names after the asset's hash, which is also the S3 key's (`<hash>.zip`).
 */
function assetPathOf(metadata: unknown, s3Key: unknown): string | undefined {
  if (typeof metadata === 'string') return metadata;
  const hash = typeof s3Key === 'string' ? /^([0-9a-f]{64})\.zip$/.exec(s3Key)?.[1] : undefined;
  return hash === undefined ? undefined : `asset.${hash}`;
}

const asList = (value: string | readonly string[] | undefined): string[] =>
  value === undefined ? [] : typeof value === 'string' ? [value] : [...value];

function parse<T extends z.ZodType>(schema: T, logicalId: string, value: unknown): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new Error(
      `reading ${logicalId}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(properties)'}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

/** Reads a synthesized template as it would be deployed in `env`. */
export function readDeployment(template: unknown, env: DeploymentEnv): Deployment {
  const {
    Resources: resources,
    Outputs: templateOutputs,
    Description: description,
  } = parse(TemplateSchema, 'the template', template);
  const resolver = new Resolver(env, resources);
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const props = (logicalId: string): unknown => resolver.resolve(resources[logicalId]?.Properties ?? {});
  const arnOf = (logicalId: string) => resolver.resource(logicalId).attributes.Arn ?? '';
  const nameOf = (logicalId: string) => resolver.resource(logicalId).physicalName;

  const asyncConfigs = new Map<string, { maximumRetryAttempts: number; maximumEventAgeSeconds: number }>();
  for (const [id] of ofType('AWS::Lambda::EventInvokeConfig')) {
    const config = parse(
      z.object({
        FunctionName: z.string(),
        MaximumRetryAttempts: z.coerce.number().optional(),
        MaximumEventAgeInSeconds: z.coerce.number().optional(),
      }),
      id,
      props(id),
    );
    asyncConfigs.set(config.FunctionName, {
      maximumRetryAttempts: config.MaximumRetryAttempts ?? LAMBDA_ASYNC_DEFAULTS.maximumRetryAttempts,
      maximumEventAgeSeconds: config.MaximumEventAgeInSeconds ?? LAMBDA_ASYNC_DEFAULTS.maximumEventAgeSeconds,
    });
  }

  const attached = new Map<string, NamedPolicy[]>();
  for (const [id] of ofType('AWS::IAM::Policy')) {
    const policy = parse(
      z.object({ PolicyName: z.string(), PolicyDocument: z.unknown(), Roles: z.array(z.string()).default([]) }),
      id,
      props(id),
    );
    const named = parsePolicy(id, policy.PolicyDocument);
    for (const roleName of policy.Roles) attached.set(roleName, [...(attached.get(roleName) ?? []), named]);
  }

  const roles = ofType('AWS::IAM::Role').map(([id]): RoleSpec => {
    const role = parse(
      z.object({
        AssumeRolePolicyDocument: z.object({
          Statement: z.array(
            z.object({
              Principal: z.object({ Service: z.union([z.string(), z.array(z.string())]).optional() }).optional(),
            }),
          ),
        }),
        Policies: z.array(z.object({ PolicyName: z.string(), PolicyDocument: z.unknown() })).default([]),
        ManagedPolicyArns: z.array(z.string()).default([]),
      }),
      id,
      props(id),
    );
    const name = nameOf(id);
    return {
      logicalId: id,
      name,
      arn: arnOf(id),
      assumedBy: role.AssumeRolePolicyDocument.Statement.flatMap((s) => asList(s.Principal?.Service)),
      policies: [
        ...role.Policies.map((p) => parsePolicy(`${id}/${p.PolicyName}`, p.PolicyDocument)),
        ...(attached.get(name) ?? []),
      ],
      managedPolicyArns: role.ManagedPolicyArns,
    };
  });

  const functions = ofType('AWS::Lambda::Function').map(([id, resource]): FunctionSpec => {
    const fn = parse(FunctionProps, id, props(id));
    const name = nameOf(id);
    const arn = arnOf(id);
    const configured = asyncConfigs.get(name) ?? asyncConfigs.get(arn);
    return {
      logicalId: id,
      name,
      arn,
      roleArn: fn.Role,
      handler: fn.Handler,
      runtime: fn.Runtime,
      timeoutSeconds: fn.Timeout,
      memoryMb: fn.MemorySize,
      reservedConcurrency: fn.ReservedConcurrentExecutions,
      environment: fn.Environment?.Variables ?? {},
      async: { ...(configured ?? LAMBDA_ASYNC_DEFAULTS), explicit: configured !== undefined },
      dependsOn: asList(resource.DependsOn),
      assetPath: assetPathOf(resource.Metadata?.['aws:asset:path'], fn.Code?.S3Key),
      ...(fn.Description !== undefined ? { description: fn.Description } : {}),
      ...(fn.Architectures !== undefined ? { architectures: fn.Architectures } : {}),
      ...(fn.VpcConfig !== undefined
        ? { vpc: { subnetIds: fn.VpcConfig.SubnetIds, securityGroupIds: fn.VpcConfig.SecurityGroupIds } }
        : {}),
      logGroupName: fn.LoggingConfig?.LogGroup ?? `/aws/lambda/${name}`,
    };
  });

  const queues = ofType('AWS::SQS::Queue').map(([id]): QueueSpec => {
    const queue = parse(QueueProps, id, props(id));
    const deployed = resolver.resource(id);
    return {
      logicalId: id,
      name: deployed.physicalName,
      arn: arnOf(id),
      url: deployed.ref,
      visibilityTimeoutSeconds: queue.VisibilityTimeout,
      retentionSeconds: queue.MessageRetentionPeriod,
      deadLetter: queue.RedrivePolicy
        ? { targetArn: queue.RedrivePolicy.deadLetterTargetArn, maxReceiveCount: queue.RedrivePolicy.maxReceiveCount }
        : undefined,
    };
  });

  const rules = ofType('AWS::Events::Rule').map(([id]): RuleSpec => {
    const rule = parse(RuleProps, id, props(id));
    return {
      logicalId: id,
      name: nameOf(id),
      arn: arnOf(id),
      eventBusName: rule.EventBusName ?? 'default',
      eventPattern: rule.EventPattern,
      enabled: rule.State === 'ENABLED',
      ...(rule.Description !== undefined ? { description: rule.Description } : {}),
      targets: rule.Targets.map((t) => ({
        id: t.Id,
        arn: t.Arn,
        roleArn: t.RoleArn,
        input: t.Input,
        deadLetterArn: t.DeadLetterConfig?.Arn,
        maximumRetryAttempts: t.RetryPolicy?.MaximumRetryAttempts ?? EVENTBRIDGE_RETRY_DEFAULTS.maximumRetryAttempts,
        maximumEventAgeSeconds:
          t.RetryPolicy?.MaximumEventAgeInSeconds ?? EVENTBRIDGE_RETRY_DEFAULTS.maximumEventAgeSeconds,
      })),
    };
  });

  const eventSourceMappings = ofType('AWS::Lambda::EventSourceMapping').map(([id]): EventSourceMappingSpec => {
    const mapping = parse(EventSourceMappingProps, id, props(id));
    return {
      logicalId: id,
      functionName: mapping.FunctionName,
      eventSourceArn: mapping.EventSourceArn,
      batchSize: mapping.BatchSize ?? 10,
      batchingWindowSeconds: mapping.MaximumBatchingWindowInSeconds ?? 0,
      reportBatchItemFailures: mapping.FunctionResponseTypes.includes('ReportBatchItemFailures'),
      maximumConcurrency: mapping.ScalingConfig?.MaximumConcurrency,
      enabled: mapping.Enabled,
    };
  });

  const stateMachines = ofType('AWS::StepFunctions::StateMachine').map(([id]): StateMachineSpec => {
    const machine = parse(StateMachineProps, id, props(id));
    const definition =
      machine.Definition ??
      (machine.DefinitionString === undefined ? undefined : (JSON.parse(machine.DefinitionString) as unknown));
    return {
      logicalId: id,
      name: nameOf(id),
      arn: arnOf(id),
      type: machine.StateMachineType,
      roleArn: machine.RoleArn,
      definition: parse(z.record(z.string(), z.unknown()), `${id} definition`, definition),
      logDestinations:
        machine.LoggingConfiguration?.Level === 'OFF'
          ? []
          : (machine.LoggingConfiguration?.Destinations ?? []).flatMap((d) =>
              d.CloudWatchLogsLogGroup ? [d.CloudWatchLogsLogGroup.LogGroupArn] : [],
            ),
    };
  });

  const schedules = ofType('AWS::Scheduler::Schedule').map(([id]): ScheduleSpec => {
    const schedule = parse(ScheduleProps, id, props(id));
    const groupName = schedule.GroupName ?? 'default';
    return {
      logicalId: id,
      name: nameOf(id),
      groupName,
      arn: arnOf(id).replace(/:schedule\/default\//, `:schedule/${groupName}/`),
      ...(schedule.Description !== undefined ? { description: schedule.Description } : {}),
      flexibleTimeWindow: {
        mode: schedule.FlexibleTimeWindow.Mode,
        ...(schedule.FlexibleTimeWindow.MaximumWindowInMinutes !== undefined
          ? { maximumWindowInMinutes: schedule.FlexibleTimeWindow.MaximumWindowInMinutes }
          : {}),
      },
      expression: schedule.ScheduleExpression,
      timezone: schedule.ScheduleExpressionTimezone,
      enabled: schedule.State === 'ENABLED',
      targetArn: schedule.Target.Arn,
      roleArn: schedule.Target.RoleArn,
      input: schedule.Target.Input,
      maximumRetryAttempts:
        schedule.Target.RetryPolicy?.MaximumRetryAttempts ?? EVENTBRIDGE_RETRY_DEFAULTS.maximumRetryAttempts,
      maximumEventAgeSeconds:
        schedule.Target.RetryPolicy?.MaximumEventAgeInSeconds ?? EVENTBRIDGE_RETRY_DEFAULTS.maximumEventAgeSeconds,
    };
  });

  const eventBuses = ofType('AWS::Events::EventBus').map(([id]): EventBusSpec => ({
    logicalId: id,
    name: nameOf(id),
    arn: arnOf(id),
  }));

  const accessEntries = ofType('AWS::EKS::AccessEntry').map(([id]): AccessEntrySpec => {
    const entry = parse(AccessEntryProps, id, props(id));
    return {
      logicalId: id,
      clusterName: entry.ClusterName,
      principalArn: entry.PrincipalArn,
      kubernetesGroups: entry.KubernetesGroups,
      ...(entry.Username ? { username: entry.Username } : {}),
      type: entry.Type,
    };
  });

  const outputs = Object.entries(templateOutputs).map(([key, output]): OutputSpec => {
    const value = resolver.resolve(output.Value);
    if (typeof value !== 'string') throw new Error(`reading output ${key}: its value resolves to no string`);
    return { key, value, ...(output.Description !== undefined ? { description: output.Description } : {}) };
  });

  return {
    env,
    ...(description !== undefined ? { description } : {}),
    outputs,
    roles,
    functions,
    queues,
    rules,
    eventSourceMappings,
    stateMachines,
    schedules,
    eventBuses,
    accessEntries,
    resource: (logicalId) => resolver.resource(logicalId),
  };
}
