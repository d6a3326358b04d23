// NodeReconciler: everything one cluster's reconciler needs (docs/design.md §6) in one construct.
//
//   EventBridge rules (one per signal, docs/design.md §2) → SQS queue (+ DLQ) → events function
//   EventBridge Scheduler → sweep function
//   events / sweep functions → StartExecution → drain workflow (Step Functions) → drain-step function
//   functions and workflow → output event bus (Node Deleted, Node Drained, Drain Failed, Divergence Detected)
//   dashboard and alarms; IAM roles; EKS access entries and the RBAC manifest
import { Annotations, ArnFormat, Duration, Names, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  SettingsSchema,
  settingsProblems,
  type Settings,
  type SettingsInput,
} from '@ec2-node-reconciler/model/contract/settings.js';
import { FUNCTION_ENV } from '@ec2-node-reconciler/model/contract/env.js';
import { SIGNAL_QUEUE } from '@ec2-node-reconciler/model/contract/signal-queue.js';
import { EVENT_SOURCE, KUBE_SEATS } from '@ec2-node-reconciler/model/contract/api-budgets.js';
import { ClusterAccess, type ReconcilerCluster } from './cluster-access.js';
import { DrainWorkflow } from './drain-workflow.js';
import { invokeGrantFinding, wildcardResourceFinding } from './findings.js';
import { clusterArn, DEFAULT_ENTRIES, FUNCTION_SPECS, ReconcilerFunctions, type FunctionKind } from './functions.js';
import type { HeartbeatGap } from './heartbeat-gap.js';
import { InvalidPropsError } from './invalid-props.js';
import { Observability } from './observability.js';
import {
  DRAIN_STEP_PERMISSIONS,
  EVENT_SOURCE_QUEUE_PERMISSION,
  EVENTS_POLICY_PERMISSIONS,
  SWEEP_POLICY_PERMISSIONS,
  type Permission,
} from '@ec2-node-reconciler/model/contract/permissions.js';
import {
  acknowledgeAutoScalingFindings,
  decommissionTagStatement,
  permissionStatements,
  type PermissionResources,
} from './permissions.js';
import { SignalRules } from './signal-rules.js';

/**
 * What the scheduler passes to the sweep function: no overrides, the deployed settings as they are
 * (lib/lambda/sweep-payload.ts takes `{ dryRun?, settings? }` and refuses anything else).
 */
export const SWEEP_SCHEDULE_INPUT = {} as const;

/** Properties of a NodeReconciler. Everything is optional except the cluster (by name or construct). */
export interface NodeReconcilerProps {
  /**
   * Name of the EKS cluster whose Nodes and instances are reconciled.
   *
   * @default - `cluster.clusterName`; one of `clusterName` and `cluster` is required
   */
  readonly clusterName?: string;

  /**
   * The cluster construct (`aws-eks` or `aws-eks-v2`, with a kubectl provider). When given, the RBAC
   * manifest is applied to it and its security group admits the functions on 443.
   *
   * @default - none: apply the RBAC manifest yourself (`kubectl apply`, see the README)
   */
  readonly cluster?: ReconcilerCluster;

  /**
   * Reconciler settings: the names, meanings and defaults of lib/settings.ts. Validated at synth.
   *
   * @default - every setting at its default (DEFAULT_SETTINGS)
   */
  readonly settings?: SettingsInput;

  /**
   * When the sweep runs.
   *
   * @default ScheduleExpression.rate(Duration.minutes(10))
   */
  readonly sweepSchedule?: scheduler.ScheduleExpression;

  /**
   * Auto Scaling groups whose events the rules pass and whose lifecycle actions the reconciler may complete.
   *
   * @default - every group; IAM is then scoped to groups tagged `eks:cluster-name=<cluster>` or `kubernetes.io/cluster/<cluster>`
   */
  readonly autoScalingGroupNames?: string[];

  /**
   * Lifecycle hooks whose terminate actions the reconciler drains for and completes. Set it when
   * your groups have other terminate hooks that something else completes.
   *
   * @default - every terminate lifecycle hook
   */
  readonly lifecycleHookNames?: string[];

  /**
   * VPC to run the functions in, for a cluster with a private API endpoint. The subnets need a route
   * to the AWS APIs the functions call (NAT, or interface endpoints for EC2, Auto Scaling, EKS, Step
   * Functions and EventBridge, and X-Ray with `tracing`).
   *
   * @default - the functions run outside any VPC
   */
  readonly vpc?: ec2.IVpc;

  /**
   * Subnets for the functions, with `vpc`.
   *
   * @default - the VPC's private subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;

  /**
   * Security groups for the functions, with `vpc`. They must reach the cluster endpoint on 443.
   *
   * @default - one new security group allowing all outbound traffic
   */
  readonly securityGroups?: ec2.ISecurityGroup[];

  /**
   * Topic every alarm notifies on ALARM and OK.
   *
   * @default - the alarms notify nobody
   */
  readonly alarmTopic?: sns.ITopic;

  /**
   * Retention of the functions' and the workflow's log groups.
   *
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;

  /**
   * What happens to the log groups and the queues when they leave the stack.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * Events handed to one invocation of the events function (1–10,000; above 10 it needs an
   * `eventBatchingWindow` of at least 1 s). One invocation looks its whole batch up at once: one
   * DescribeInstances for up to 200 instances.
   *
   * @default 25
   */
  readonly eventBatchSize?: number;

  /**
   * How long the event source gathers events before it invokes the events function (0–300 s): a
   * storm's events arrive in batches, so EC2 is asked once a batch instead of once an event.
   *
   * @default Duration.seconds(1)
   */
  readonly eventBatchingWindow?: Duration;

  /**
   * Most concurrent invocations of the events function (2–1000): bounds the load a burst of
   * interruptions puts on EC2 (a DescribeInstances per invocation) and on the Kubernetes API server
   * (8 requests in flight per invocation).
   *
   * @default 2
   */
  readonly eventMaxConcurrency?: number;

  /**
   * Name of the event bus the reconciler publishes its own events on (stack output OutputEventBusName).
   *
   * @default - a name CDK generates from the construct path, unique to this stack
   */
  readonly outputEventBusName?: string;

  /**
   * Name of the CloudWatch dashboard. Dashboard names are global to the account: two stacks (two
   * regions, two copies) must not share one.
   *
   * @default - a name CloudFormation generates, unique to this stack (stack output DashboardUrl)
   */
  readonly dashboardName?: string;

  /**
   * Prefix of the alarm names: each alarm is `<prefix>-<alarm>` (e.g. `<prefix>-DeadLetterQueueNotEmpty`).
   * Alarm names are unique per account and region: two stacks must not share a prefix.
   *
   * @default - names CloudFormation generates, unique to this stack
   */
  readonly alarmNamePrefix?: string;

  /**
   * Create EKS access entries mapping the function roles to the Kubernetes group `ec2-node-reconciler`.
   * Turn off for clusters whose authentication mode is CONFIG_MAP only, and map the roles in aws-auth.
   *
   * @default true
   */
  readonly createAccessEntries?: boolean;

  /**
   * Active X-Ray tracing for the functions and the drain workflow.
   *
   * @default false
   */
  readonly tracing?: boolean;

  /**
   * A drain execution still running after this ends TIMED_OUT (drains normally end at their deadline).
   *
   * @default Duration.days(1)
   */
  readonly maxDrainDuration?: Duration;

  /**
   * The longest the drain workflow lets a lifecycle heartbeat age while it waits between drain steps
   * (the drain-step function also records one at the start of every invocation). It is part of the
   * worst-case gap between heartbeats (see `lifecycleHookTimeout`).
   *
   * @default Duration.minutes(1)
   */
  readonly lifecycleHeartbeatInterval?: Duration;

  /**
   * The heartbeat timeout of your terminate lifecycle hooks (`put-lifecycle-hook --heartbeat-timeout`),
   * or the shortest of them. Nothing is created from it: synth warns when it is under twice the drain
   * workflow's worst-case gap between heartbeats (retries included), as a hook can then lapse mid-drain
   * and Auto Scaling apply its default result. Auto Scaling accepts 30 seconds to 2 hours.
   *
   * @default Duration.hours(1) - Auto Scaling's default heartbeat timeout
   */
  readonly lifecycleHookTimeout?: Duration;

  /**
   * Reserve a concurrency of 1 for the sweep function, so that sweeps never overlap (a scheduled one,
   * a manual `invoke` and their retries). Lambda refuses any reservation that would leave the
   * account fewer than 10 unreserved concurrent executions, so an account whose quota is 10 (new
   * accounts) cannot deploy it: turn it off there until the quota is raised (`doctor` checks it).
   *
   * @default true
   */
  readonly reserveSweepConcurrency?: boolean;

  /**
   * Entry files of the functions, each exporting `handler`; they must lie under the repository root.
   *
   * @default - functions/events.ts, functions/sweep.ts and functions/drain-step.ts of this repository
   */
  readonly entries?: Partial<Record<FunctionKind, string>>;
}

/** Defaults of the optional props, resolved once at the top of the constructor. */
export const DEFAULTS = {
  sweepSchedule: scheduler.ScheduleExpression.rate(Duration.minutes(10)),
  logRetention: logs.RetentionDays.ONE_MONTH,
  removalPolicy: RemovalPolicy.RETAIN,
  eventBatchSize: EVENT_SOURCE.batchSize,
  eventBatchingWindow: Duration.seconds(EVENT_SOURCE.batchingWindowSeconds),
  eventMaxConcurrency: EVENT_SOURCE.maxConcurrency,
  createAccessEntries: true,
  tracing: false,
  maxDrainDuration: Duration.days(1),
  lifecycleHeartbeatInterval: Duration.minutes(1),
  lifecycleHookTimeout: Duration.hours(1),
  reserveSweepConcurrency: true,
} as const;

/** Auto Scaling's bounds on a lifecycle hook's heartbeat timeout (PutLifecycleHook HeartbeatTimeout). */
const HOOK_TIMEOUT_SECONDS = { min: 30, max: 7200 } as const;

/** EKS cluster names: 1–100 characters, a letter or digit first, then letters, digits, - and _. */
const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;
const EVENT_BUS_NAME = /^[/.\-_A-Za-z0-9]{1,256}$/;

/** Reconciles one EKS cluster's Nodes with its EC2 instances. */
export class NodeReconciler extends Construct {
  readonly clusterName: string;
  /** The settings as the functions will read them (defaults filled in). */
  readonly settings: Settings;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly eventsFunction: lambda.IFunction;
  readonly sweepFunction: lambda.IFunction;
  readonly drainStepFunction: lambda.IFunction;
  readonly drainStateMachine: sfn.StateMachine;
  /** The longest a drain may go without a lifecycle heartbeat, retries included; hooks need a heartbeat timeout of twice this. */
  readonly heartbeatGap: HeartbeatGap;
  readonly outputBus: events.EventBus;
  readonly rules: SignalRules;
  readonly sweepSchedule: scheduler.Schedule;
  readonly observability: Observability;
  readonly clusterAccess: ClusterAccess;
  /** Roles of the functions, by function. */
  readonly roles: Readonly<Record<FunctionKind, iam.IRole>>;
  /** The functions' security groups when they run in a VPC (given, or one created); empty outside a VPC. */
  readonly functionSecurityGroups: readonly ec2.ISecurityGroup[];

  constructor(scope: Construct, id: string, props: NodeReconcilerProps) {
    super(scope, id);
    const { clusterName, settings, settingsInput } = validate(props);
    const removalPolicy = props.removalPolicy ?? DEFAULTS.removalPolicy;
    const logRetention = props.logRetention ?? DEFAULTS.logRetention;
    const tracing = props.tracing ?? DEFAULTS.tracing;
    const maxDrainDuration = props.maxDrainDuration ?? DEFAULTS.maxDrainDuration;
    const heartbeatInterval = props.lifecycleHeartbeatInterval ?? DEFAULTS.lifecycleHeartbeatInterval;
    const asgScope = { clusterName, autoScalingGroupNames: props.autoScalingGroupNames };
    this.clusterName = clusterName;
    this.settings = settings;

    const functions = new ReconcilerFunctions(this, 'Functions', {
      clusterName,
      // Settings travel as given (input form, e.g. "2m"), so the functions parse exactly what was validated here.
      settingsJson: JSON.stringify(settingsInput),
      autoScalingGroupNames: props.autoScalingGroupNames,
      lifecycleHookNames: props.lifecycleHookNames,
      entries: { ...DEFAULT_ENTRIES, ...props.entries },
      logRetention,
      removalPolicy,
      tracing,
      reserveConcurrency: props.reserveSweepConcurrency ?? DEFAULTS.reserveSweepConcurrency,
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
      securityGroups: props.securityGroups,
    });
    this.eventsFunction = functions.events;
    this.sweepFunction = functions.sweep;
    this.drainStepFunction = functions.drainStep;
    this.functionSecurityGroups = functions.securityGroups;
    this.roles = {
      events: roleOf(functions.events),
      sweep: roleOf(functions.sweep),
      drainStep: roleOf(functions.drainStep),
    };

    this.outputBus = new events.EventBus(this, 'OutputBus', {
      ...(props.outputEventBusName === undefined ? {} : { eventBusName: props.outputEventBusName }),
      description: `ec2-node-reconciler (${clusterName}): Node Deleted, Node Drained, Drain Failed, Divergence Detected`,
    });

    const workflow = new DrainWorkflow(this, 'DrainWorkflow', {
      ...asgScope,
      drainStepFunction: functions.drainStep,
      drainStepTimeout: FUNCTION_SPECS.drainStep.timeout,
      outputBus: this.outputBus,
      maxDrainDuration,
      heartbeatInterval,
      tracing,
      logRetention,
      removalPolicy,
    });
    this.drainStateMachine = workflow.stateMachine;
    this.heartbeatGap = workflow.heartbeatGap;
    this.warn(props, settings, maxDrainDuration, workflow.heartbeatGap);

    // Signals: rules → queue → events function.
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This is the dead-letter queue of the signal queue and of the rule targets; a DLQ of a DLQ would only move the problem.',
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      // Lambda's advice for SQS event sources: six times the function timeout, so throttled batches are not redelivered early.
      visibilityTimeout: Duration.seconds(SIGNAL_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: SIGNAL_QUEUE.maxReceiveCount },
    });
    this.rules = new SignalRules(this, 'Rules', {
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      descriptionPrefix: `ec2-node-reconciler (${clusterName})`,
      autoScalingGroupNames: props.autoScalingGroupNames,
      lifecycleHookNames: props.lifecycleHookNames,
      skipRebalance: settings.rebalance === 'ignore',
    });
    // SqsEventSource's mapping (the same id), without its grantConsumeMessages: only what the mapping needs.
    functions.events.addEventSourceMapping(`SqsEventSource:${Names.nodeUniqueId(this.queue.node)}`, {
      eventSourceArn: this.queue.queueArn,
      batchSize: props.eventBatchSize ?? DEFAULTS.eventBatchSize,
      maxBatchingWindow: props.eventBatchingWindow ?? DEFAULTS.eventBatchingWindow,
      maxConcurrency: props.eventMaxConcurrency ?? DEFAULTS.eventMaxConcurrency,
      reportBatchItemFailures: true,
    });
    this.queue.grant(functions.events, ...EVENT_SOURCE_QUEUE_PERMISSION.actions);

    // Sweep: the scheduler invokes the sweep function; a missed run is covered by the next one.
    // Its own role, not the stack-wide one the target would share between reconcilers.
    const scheduleRole = new iam.Role(this, 'SweepScheduleRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: `ec2-node-reconciler sweep schedule (${clusterName})`,
    });
    this.sweepSchedule = new scheduler.Schedule(this, 'SweepSchedule', {
      schedule: props.sweepSchedule ?? DEFAULTS.sweepSchedule,
      description: `ec2-node-reconciler (${clusterName}): periodic sweep`,
      target: new schedulerTargets.LambdaInvoke(functions.sweep, {
        input: scheduler.ScheduleTargetInput.fromObject(SWEEP_SCHEDULE_INPUT),
        role: scheduleRole,
        retryAttempts: 0,
      }),
    });
    Validations.of(scheduleRole).acknowledge({
      id: invokeGrantFinding(functions.sweep),
      reason:
        'CDK grants lambda:InvokeFunction on the sweep function and its versions/aliases (ARN:*); no other function.',
    });

    for (const fn of [functions.events, functions.sweep]) {
      fn.addEnvironment(FUNCTION_ENV.drainStateMachineArn, this.drainStateMachine.stateMachineArn);
      fn.addEnvironment(FUNCTION_ENV.outputEventBusName, this.outputBus.eventBusName);
    }
    const eventsPolicy = this.grantReconcilerPermissions(
      'EventsPolicy',
      this.roles.events,
      clusterName,
      asgScope,
      EVENTS_POLICY_PERMISSIONS,
    );
    const sweepPolicy = this.grantReconcilerPermissions(
      'SweepPolicy',
      this.roles.sweep,
      clusterName,
      asgScope,
      SWEEP_POLICY_PERMISSIONS,
    );
    const drainStepPolicy = this.grantDrainStepPermissions(clusterName, asgScope);
    // No invocation before its permissions: CloudFormation would otherwise create a function (and start
    // its queue's event source) before the separate policy is attached, and its first runs be denied.
    functions.events.node.addDependency(eventsPolicy);
    functions.sweep.node.addDependency(sweepPolicy);
    functions.drainStep.node.addDependency(drainStepPolicy);

    this.clusterAccess = new ClusterAccess(this, 'ClusterAccess', {
      clusterName,
      roles: { Events: this.roles.events, Sweep: this.roles.sweep, DrainStep: this.roles.drainStep },
      createAccessEntries: props.createAccessEntries ?? DEFAULTS.createAccessEntries,
      cluster: props.cluster,
      securityGroups: functions.securityGroups,
    });

    this.observability = new Observability(this, 'Observability', {
      clusterName,
      functions: { events: functions.events, sweep: functions.sweep, drainStep: functions.drainStep },
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      stateMachine: this.drainStateMachine,
      alarmTopic: props.alarmTopic,
      ...(props.dashboardName === undefined ? {} : { dashboardName: props.dashboardName }),
      ...(props.alarmNamePrefix === undefined ? {} : { alarmNamePrefix: props.alarmNamePrefix }),
    });
  }

  /**
   * Lets an operator's role tag instances for decommissioning and remove the tag again
   * (`ec2-node-reconciler decommission`, `decommission --undo`): ec2:CreateTags and ec2:DeleteTags
   * on any instance, for the decommission tag key only. The functions never tag.
   */
  grantDecommission(grantee: iam.IGrantable): iam.Grant {
    const statement = decommissionTagStatement(this);
    return iam.Grant.addToPrincipal({
      grantee,
      actions: statement.actions,
      resourceArns: statement.resources,
      conditions: statement.conditions as Record<string, Record<string, unknown>>,
    });
  }

  /**
   * The event and sweep functions run the same pipeline (docs/design.md §2) over different scopes: the
   * cluster, the drain workflow and the output bus alike, and the reads and Auto Scaling mutations
   * of their own scope (an event observes its instances only; only a sweep sees whole groups).
   */
  private grantReconcilerPermissions(
    id: string,
    role: iam.IRole,
    clusterName: string,
    asgScope: { clusterName: string; autoScalingGroupNames?: string[] },
    permissions: readonly Permission[],
  ): iam.Policy {
    const policy = new iam.Policy(this, id, {
      roles: [role],
      statements: permissionStatements(this, permissions, this.permissionResources(clusterName), asgScope),
    });
    const unscopable = permissions.filter((p) => p.on === 'any').flatMap((p) => p.actions);
    Validations.of(policy).acknowledge({
      id: wildcardResourceFinding(this, '*'),
      reason: `${unscopable.join(', ')} support no resource-level permissions; the actions are named, none is a wildcard.`,
    });
    Validations.of(policy).acknowledge({
      id: wildcardResourceFinding(this, this.drainExecutionsArn()),
      reason:
        'DescribeExecution on the executions of the drain state machine only: the * stands for the execution name.',
    });
    acknowledgeAutoScalingFindings(policy, asgScope);
    return policy;
  }

  /** The drain step reaches the cluster, and keeps the lifecycle action it drains for alive at the start of every invocation. */
  private grantDrainStepPermissions(
    clusterName: string,
    asgScope: { clusterName: string; autoScalingGroupNames?: string[] },
  ): iam.Policy {
    const policy = new iam.Policy(this, 'DrainStepPolicy', {
      roles: [this.roles.drainStep],
      statements: permissionStatements(this, DRAIN_STEP_PERMISSIONS, this.permissionResources(clusterName), asgScope),
    });
    acknowledgeAutoScalingFindings(policy, asgScope);
    return policy;
  }

  /** The ARNs the permissions of packages/model/src/contract/permissions.ts name. */
  private permissionResources(clusterName: string): PermissionResources {
    return {
      cluster: clusterArn(this, clusterName),
      drainStateMachine: this.drainStateMachine.stateMachineArn,
      drainExecutions: this.drainExecutionsArn(),
      outputBus: this.outputBus.eventBusArn,
      signalQueue: this.queue.queueArn,
    };
  }

  /** `arn:…:states:<region>:<account>:execution:<drain state machine>:*`. */
  private drainExecutionsArn(): string {
    return Stack.of(this).formatArn({
      service: 'states',
      resource: 'execution',
      resourceName: `${this.drainStateMachine.stateMachineName}:*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  }

  private warn(props: NodeReconcilerProps, settings: Settings, maxDrainDuration: Duration, gap: HeartbeatGap): void {
    const annotations = Annotations.of(this);
    if (settings.dryRun) {
      annotations.addWarningV2(
        'ec2-node-reconciler:dryRun',
        'settings.dryRun is true: the deployed reconciler plans and reports but changes nothing. Set it to false for production.',
      );
    }
    if (!(props.reserveSweepConcurrency ?? DEFAULTS.reserveSweepConcurrency)) {
      annotations.addWarningV2(
        'ec2-node-reconciler:sweepConcurrencyUnreserved',
        'reserveSweepConcurrency is false: two sweeps can overlap (a manual invoke during a scheduled one), each with its own circuit breaker. Turn it on once the account can reserve it (ec2-node-reconciler doctor checks the Lambda concurrency quota).',
      );
    }
    if (settings.maxDeletions === 0) {
      annotations.addWarningV2(
        'ec2-node-reconciler:maxDeletionsZero',
        'settings.maxDeletions is 0: the circuit breaker trips on any stale Node, so stale Nodes are reported but never deleted.',
      );
    }
    if (maxDrainDuration.toMilliseconds() < settings.drainTimeout) {
      annotations.addWarningV2(
        'ec2-node-reconciler:maxDrainDurationShort',
        `maxDrainDuration (${maxDrainDuration.toHumanString()}) is shorter than settings.drainTimeout: drains time out before their own deadline.`,
      );
    }
    if (settings.repair.enabled && maxDrainDuration.toMilliseconds() < settings.repair.drainTimeout) {
      annotations.addWarningV2(
        'ec2-node-reconciler:maxDrainDurationShortForRepair',
        `maxDrainDuration (${maxDrainDuration.toHumanString()}) is shorter than settings.repair.drainTimeout: repair drains time out before their own deadline.`,
      );
    }
    const hookTimeout = props.lifecycleHookTimeout ?? DEFAULTS.lifecycleHookTimeout;
    if (!hookTimeout.isUnresolved() && hookTimeout.toSeconds() < 2 * gap.seconds) {
      const interval = (props.lifecycleHeartbeatInterval ?? DEFAULTS.lifecycleHeartbeatInterval).toHumanString();
      annotations.addWarningV2(
        'ec2-node-reconciler:lifecycleHookTimeoutShort',
        `lifecycleHookTimeout (${hookTimeout.toHumanString()}) is under twice the drain workflow's worst-case gap between lifecycle heartbeats ` +
          `(${gap.seconds} s: a ${gap.attemptSeconds} s drain step attempt, ${gap.handlerRetryDelaySeconds} s before its retry and ${gap.serviceRetrySeconds} s of Lambda throttling retries, or the ${interval} heartbeat interval): ` +
          `a hook can lapse mid-drain and Auto Scaling apply its default result. Give your hooks a heartbeat timeout of at least ${2 * gap.seconds} s, or shorten lifecycleHeartbeatInterval.`,
      );
    }
    const concurrency = props.eventMaxConcurrency ?? DEFAULTS.eventMaxConcurrency;
    if (!Token.isUnresolved(concurrency) && concurrency * KUBE_SEATS.perInvocation > KUBE_SEATS.goal) {
      annotations.addWarningV2(
        'ec2-node-reconciler:eventConcurrencyHigh',
        `eventMaxConcurrency ${concurrency} lets the events function keep ${concurrency * KUBE_SEATS.perInvocation} Kubernetes requests in flight (${KUBE_SEATS.perInvocation} per invocation), over ${KUBE_SEATS.goal} of the ${KUBE_SEATS.globalDefault} seats API Priority and Fairness gives the reconciler's identity: a storm of interruptions can crowd out the rest of it (drains, sweeps) and be throttled.`,
      );
    }
    if (Token.isUnresolved(this.clusterName) && !props.autoScalingGroupNames) {
      annotations.addWarningV2(
        'ec2-node-reconciler:tokenClusterName',
        'The cluster name is only known at deploy time: lifecycle and health permissions cover groups tagged eks:cluster-name (EKS managed node groups) only. Pass autoScalingGroupNames for self-managed groups.',
      );
    }
    if (!(props.createAccessEntries ?? DEFAULTS.createAccessEntries)) {
      annotations.addInfoV2(
        'ec2-node-reconciler:accessByHand',
        'createAccessEntries is false: map the three function roles (stack outputs *RoleArn) to the Kubernetes group ec2-node-reconciler in aws-auth (README, "RBAC").',
      );
    }
    if (!props.cluster) {
      annotations.addInfoV2(
        'ec2-node-reconciler:rbacByHand',
        'No cluster construct given: apply the RBAC manifest once with kubectl (README, "RBAC").',
      );
    }
  }
}

function roleOf(fn: lambda.IFunction): iam.IRole {
  if (!fn.role) throw new Error(`function ${fn.node.path} has no role`);
  return fn.role;
}

interface Validated {
  readonly clusterName: string;
  readonly settings: Settings;
  readonly settingsInput: SettingsInput;
}

/** Checks every prop and throws one error naming each bad prop, not only the first. */
function validate(props: NodeReconcilerProps): Validated {
  const problems: string[] = [];
  const resolved = (value: string | undefined): value is string => value !== undefined && !Token.isUnresolved(value);

  const clusterName = props.clusterName ?? props.cluster?.clusterName;
  if (clusterName === undefined) problems.push('clusterName: required when no cluster construct is given');
  else if (resolved(clusterName) && !CLUSTER_NAME.test(clusterName)) {
    problems.push(
      `clusterName: ${JSON.stringify(clusterName)} is not an EKS cluster name (letters, digits, - and _, at most 100)`,
    );
  }
  if (
    resolved(props.clusterName) &&
    resolved(props.cluster?.clusterName) &&
    props.clusterName !== props.cluster.clusterName
  ) {
    problems.push(`clusterName: ${props.clusterName} differs from cluster.clusterName ${props.cluster.clusterName}`);
  }

  const parsed = SettingsSchema.safeParse(props.settings ?? {});
  problems.push(...settingsProblems(props.settings).map((problem) => `settings.${problem}`));

  const integerIn = (name: string, value: number | undefined, min: number, max: number) => {
    if (value !== undefined && !Token.isUnresolved(value) && (!Number.isInteger(value) || value < min || value > max)) {
      problems.push(`${name}: ${value} must be a whole number from ${min} to ${max}`);
    }
  };
  integerIn('eventBatchSize', props.eventBatchSize, 1, 10_000);
  integerIn('eventMaxConcurrency', props.eventMaxConcurrency, 2, 1000);
  const window = props.eventBatchingWindow ?? DEFAULTS.eventBatchingWindow;
  if (!window.isUnresolved()) {
    const seconds = window.toSeconds();
    if (seconds > 300) problems.push(`eventBatchingWindow: ${window.toHumanString()} must be at most 5 minutes`);
    const batchSize = props.eventBatchSize ?? DEFAULTS.eventBatchSize;
    if (!Token.isUnresolved(batchSize) && batchSize > 10 && seconds < 1)
      problems.push(`eventBatchSize: ${batchSize} above 10 needs an eventBatchingWindow of at least 1 second`);
  }

  for (const [name, list] of [
    ['autoScalingGroupNames', props.autoScalingGroupNames],
    ['lifecycleHookNames', props.lifecycleHookNames],
  ] as const) {
    if (list === undefined) continue;
    if (list.length === 0) problems.push(`${name}: empty; leave it out to mean every one`);
    list.forEach((item, index) => {
      if (item.trim() === '') problems.push(`${name}[${index}]: empty name`);
    });
  }

  if (!props.vpc && props.vpcSubnets) problems.push('vpcSubnets: needs vpc');
  if (!props.vpc && props.securityGroups) problems.push('securityGroups: needs vpc');
  if (props.outputEventBusName !== undefined && resolved(props.outputEventBusName)) {
    if (!EVENT_BUS_NAME.test(props.outputEventBusName) || props.outputEventBusName === 'default') {
      problems.push(`outputEventBusName: ${JSON.stringify(props.outputEventBusName)} is not a custom event bus name`);
    }
  }
  if (props.maxDrainDuration && !props.maxDrainDuration.isUnresolved()) {
    const seconds = props.maxDrainDuration.toSeconds();
    if (seconds < 60 || seconds > 365 * 86_400)
      problems.push('maxDrainDuration: must be from 1 minute to 365 days (Standard workflow limit)');
  }
  if (
    props.lifecycleHeartbeatInterval &&
    !props.lifecycleHeartbeatInterval.isUnresolved() &&
    props.lifecycleHeartbeatInterval.toSeconds() < 10
  ) {
    problems.push('lifecycleHeartbeatInterval: must be at least 10 seconds');
  }
  if (props.lifecycleHookTimeout && !props.lifecycleHookTimeout.isUnresolved()) {
    const seconds = props.lifecycleHookTimeout.toSeconds();
    if (seconds < HOOK_TIMEOUT_SECONDS.min || seconds > HOOK_TIMEOUT_SECONDS.max) {
      problems.push(
        `lifecycleHookTimeout: ${seconds} s is not a heartbeat timeout Auto Scaling accepts (${HOOK_TIMEOUT_SECONDS.min} s to ${HOOK_TIMEOUT_SECONDS.max} s)`,
      );
    }
  }
  for (const [name, value] of [
    ['dashboardName', props.dashboardName],
    ['alarmNamePrefix', props.alarmNamePrefix],
  ] as const) {
    if (resolved(value) && !/^[A-Za-z0-9_-]{1,200}$/.test(value))
      problems.push(`${name}: ${JSON.stringify(value)} must be 1–200 letters, digits, - and _`);
  }

  if (problems.length > 0 || clusterName === undefined || !parsed.success) {
    throw new InvalidPropsError('NodeReconciler', problems);
  }
  return { clusterName, settings: parsed.data, settingsInput: props.settings ?? {} };
}
