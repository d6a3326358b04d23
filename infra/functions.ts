// The three Lambda functions (docs/design.md §8: thin entry points in functions/), bundled by the local
// esbuild as ESM for Node 24. Each has its own role and log group: the drain step needs far less
// than the event and sweep functions, and explicit log groups carry the retention and removal policy.
import { fileURLToPath } from 'node:url';
import { Duration, Stack, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTION_ENV } from '@ec2-node-reconciler/model/contract/env.js';
import { LAMBDA_CONCURRENCY } from '@ec2-node-reconciler/model/contract/api-budgets.js';
import { SIGNAL_QUEUE } from '@ec2-node-reconciler/model/contract/signal-queue.js';
import { wildcardResourceFinding } from './findings.js';
import { METRIC_NAMESPACE, SERVICE_NAME } from '@ec2-node-reconciler/model/contract/metrics.js';

/** The repository root: NodejsFunction's projectRoot (entries and the lock file must lie under it). */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export const FUNCTION_KINDS = ['events', 'sweep', 'drainStep'] as const;
export type FunctionKind = (typeof FUNCTION_KINDS)[number];

/** Entry files, fixed by docs/design.md §8; each exports `handler`. */
export const DEFAULT_ENTRIES: Readonly<Record<FunctionKind, string>> = {
  events: fileURLToPath(new URL('../functions/events.ts', import.meta.url)),
  sweep: fileURLToPath(new URL('../functions/sweep.ts', import.meta.url)),
  drainStep: fileURLToPath(new URL('../functions/drain-step.ts', import.meta.url)),
};

/**
 * ESM bundles have no `require`; some dependencies still call it for Node built-ins. The banner
 * gives them one (aws-xray-sdk-core, under the Powertools Tracer, needs it).
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Imports the bundles resolve to a file of ours instead (relative to the project root, where
 * esbuild runs): `node:http` through require, which costs a cold start ~20 ms less
 * (lib/lambda/node-http.ts says why).
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = { 'node:http': './lib/lambda/node-http.ts' };
/** An import of a name such a file does not export is a build error, never an undefined value at run time. */
export const BUNDLE_LOG_OVERRIDES: Readonly<Record<string, 'error'>> = { 'import-is-undefined': 'error' };

/** How every function is bundled; scripts/bundle-size.ts builds with the same options. */
export const BUNDLING = {
  format: nodejs.OutputFormat.ESM,
  target: 'node24',
  // ESM entry points of dependencies first, so tree shaking has something to shake.
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  minify: true,
  sourceMap: true,
  sourceMapMode: nodejs.SourceMapMode.EXTERNAL,
  // Maps point at the sources without embedding them: the asset stays half the size.
  sourcesContent: false,
  // The Node 24 runtime provides the AWS SDK v3 (NodejsFunction's default, stated for the size script).
  externalModules: ['@aws-sdk/*'],
  // Never Docker: `cdk synth` must work offline with the esbuild in node_modules.
  forceDockerBundling: false,
  esbuildArgs: {
    '--alias': Object.entries(BUNDLE_ALIASES).map(([from, to]) => `${from}=${to}`),
    '--log-override': Object.entries(BUNDLE_LOG_OVERRIDES).map(([kind, level]) => `${kind}=${level}`),
  },
} as const satisfies nodejs.BundlingOptions;

interface FunctionSpec {
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  /** Most concurrent invocations (reserved concurrency); none: the account's pool. */
  readonly reservedConcurrency?: number;
  /** Asynchronous invocations (the Scheduler's): retries by Lambda, and how long an event may wait to run. */
  readonly async?: { readonly retryAttempts: number; readonly maxEventAge: Duration };
  /** V8 flags for NODE_OPTIONS, after `--enable-source-maps`. */
  readonly v8Flags?: readonly string[];
}

/**
 * Timeouts: an event batch is a few round trips per event; a sweep lists the whole cluster; a drain
 * step stops itself before the invocation's remaining time runs out and the workflow loops (its
 * timeout bounds the gap between lifecycle heartbeats, infra/heartbeat-gap.ts).
 *
 * One sweep at a time: the scheduled one, a manual `invoke` and their retries never overlap (a
 * second one is throttled: the Scheduler's target does not retry, an `invoke` says the sweep is
 * busy). The Scheduler invokes asynchronously, so Lambda's own retries (two by default) are turned
 * off too; a scheduled run that cannot start within one sweep's time is dropped, the next one covers it.
 */
export const FUNCTION_SPECS: Readonly<Record<FunctionKind, FunctionSpec>> = {
  events: {
    description: 'handles EC2, Auto Scaling, Health and tag signals from the queue',
    memorySize: 512,
    timeout: Duration.seconds(SIGNAL_QUEUE.eventsFunctionTimeoutSeconds),
  },
  sweep: {
    description: 'observes every node and instance on a schedule and reconciles',
    memorySize: 1024,
    timeout: Duration.minutes(5),
    reservedConcurrency: LAMBDA_CONCURRENCY.sweepReserved,
    async: { retryAttempts: 0, maxEventAge: Duration.minutes(5) },
    // A sweep parses every Node, Lease and instance page into short-lived objects (~1 GB of answers
    // at 100,000 nodes). V8 sizes its young generation from the heap limit (semi-spaces of 16 MB at
    // most); 32 MB lets more of a page die young instead of being copied and promoted. 100k sweep,
    // one world, alternating runs, load ≈ 2.5 (medians of 3): CPU 16.6 → 14.9 s, wall 17.2 → 15.8 s,
    // peak RSS 742 → 709 MiB; 64 MB cost more CPU and memory than 32 (14.9 vs 13.1 s CPU at load ≈ 6).
    v8Flags: ['--max-semi-space-size=32'],
  },
  drainStep: {
    description: 'one bounded step of a node drain (called by the drain workflow)',
    memorySize: 512,
    timeout: Duration.minutes(1),
  },
};

export interface ReconcilerFunctionsProps {
  readonly clusterName: string;
  /** JSON of the settings, read by the functions at cold start (FUNCTION_ENV.settings). */
  readonly settingsJson: string;
  /** The Auto Scaling groups configured as the cluster's: their instances are the cluster's (FUNCTION_ENV.autoScalingGroupNames). */
  readonly autoScalingGroupNames?: readonly string[];
  /** The terminate hooks the reconciler completes (FUNCTION_ENV.lifecycleHookNames). */
  readonly lifecycleHookNames?: readonly string[];
  readonly entries: Readonly<Record<FunctionKind, string>>;
  readonly logRetention: logs.RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  readonly tracing: boolean;
  /** Keep the functions' reserved concurrency (FUNCTION_SPECS); off, they share the account's unreserved pool. */
  readonly reserveConcurrency: boolean;
  readonly vpc?: ec2.IVpc;
  readonly vpcSubnets?: ec2.SubnetSelection;
  readonly securityGroups?: readonly ec2.ISecurityGroup[];
}

/** The functions, their roles and their log groups. Permissions beyond logging are granted by the owner. */
export class ReconcilerFunctions extends Construct {
  readonly events: nodejs.NodejsFunction;
  readonly sweep: nodejs.NodejsFunction;
  readonly drainStep: nodejs.NodejsFunction;
  /** The security groups of the functions when they run in a VPC (created when none were given). */
  readonly securityGroups: readonly ec2.ISecurityGroup[];

  constructor(scope: Construct, id: string, props: ReconcilerFunctionsProps) {
    super(scope, id);
    this.securityGroups = props.vpc
      ? (props.securityGroups ?? [
          new ec2.SecurityGroup(this, 'SecurityGroup', {
            vpc: props.vpc,
            description: `ec2-node-reconciler functions (${props.clusterName}): egress to the EKS API and AWS endpoints`,
            allowAllOutbound: true,
          }),
        ])
      : [];
    const make = (kind: FunctionKind, idPrefix: string) => this.makeFunction(kind, idPrefix, props);
    this.events = make('events', 'Events');
    this.sweep = make('sweep', 'Sweep');
    this.drainStep = make('drainStep', 'DrainStep');
  }

  get all(): readonly nodejs.NodejsFunction[] {
    return [this.events, this.sweep, this.drainStep];
  }

  private makeFunction(kind: FunctionKind, idPrefix: string, props: ReconcilerFunctionsProps): nodejs.NodejsFunction {
    const spec = FUNCTION_SPECS[kind];
    const logGroup = new logs.LogGroup(this, `${idPrefix}Logs`, {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    // An explicit role instead of the default one: the AWS managed AWSLambdaBasicExecutionRole
    // would allow writing to every log group in the account.
    const role = new iam.Role(this, `${idPrefix}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `ec2-node-reconciler ${kind} function (${props.clusterName})`,
    });
    logGroup.grantWrite(role);
    if (props.vpc) {
      // Lambda manages the function's network interfaces with the role.
      role.addManagedPolicy(iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaVPCAccessExecutionRole'));
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
        reason:
          'The AWS managed policy Lambda documents for VPC functions: ENI create/describe/delete, which support no resource-level scoping for Describe.',
      });
    }
    if (props.tracing) {
      Validations.of(role).acknowledge({
        id: wildcardResourceFinding(this, '*'),
        reason:
          'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
      });
    }

    return new nodejs.NodejsFunction(this, idPrefix, {
      entry: props.entries[kind],
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      description: `ec2-node-reconciler (${props.clusterName}): ${spec.description}`,
      memorySize: spec.memorySize,
      timeout: spec.timeout,
      role,
      logGroup,
      tracing: props.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      ...(spec.reservedConcurrency === undefined || !props.reserveConcurrency
        ? {}
        : { reservedConcurrentExecutions: spec.reservedConcurrency }),
      ...(spec.async === undefined
        ? {}
        : { retryAttempts: spec.async.retryAttempts, maxEventAge: spec.async.maxEventAge }),
      vpc: props.vpc,
      vpcSubnets: props.vpc ? props.vpcSubnets : undefined,
      securityGroups: props.vpc ? [...this.securityGroups] : undefined,
      environment: {
        [FUNCTION_ENV.clusterName]: props.clusterName,
        [FUNCTION_ENV.settings]: props.settingsJson,
        ...(props.autoScalingGroupNames
          ? { [FUNCTION_ENV.autoScalingGroupNames]: props.autoScalingGroupNames.join(',') }
          : {}),
        ...(props.lifecycleHookNames ? { [FUNCTION_ENV.lifecycleHookNames]: props.lifecycleHookNames.join(',') } : {}),
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRIC_NAMESPACE,
        // Without active tracing there is nothing to send segments to: the Tracer stays off (lib/lambda/telemetry.ts).
        POWERTOOLS_TRACE_ENABLED: String(props.tracing),
        // Stack traces in the logs point at the TypeScript sources (the bundles ship .map files).
        NODE_OPTIONS: ['--enable-source-maps', ...(spec.v8Flags ?? [])].join(' '),
      },
      bundling: BUNDLING,
    });
  }
}

/** `arn:<partition>:eks:<region>:<account>:cluster/<name>` in the stack's environment. */
export function clusterArn(scope: Construct, clusterName: string): string {
  return Stack.of(scope).formatArn({ service: 'eks', resource: 'cluster', resourceName: clusterName });
}
