// The template reader on the project's real app, synthesized as `cdk synth` does (infra/app.ts in a
// child process, bundling skipped to keep the test short): what a deployed world is built from.
// Logical ids start with the cluster's name (infra/stack.ts). Several expectations hold the fixes of issue #15's findings.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resolver } from '../../src/deployment/intrinsics.js';
import { synthesizeApp, type SynthesizedApp } from '../../src/deployment/synth.js';
import { LAMBDA_ASYNC_DEFAULTS, readDeployment, type Deployment } from '../../src/deployment/template.js';
import { byLogicalId } from '../support/deployment.js';

const ENV = { stackName: 'ec2-node-reconciler-demo', region: 'us-east-1', accountId: '111122223333' };
const CONTEXT = { clusterName: 'demo', region: 'us-east-1', nag: false };

let cacheDir: string;
let app: SynthesizedApp;
let deployment: Deployment;

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'synth-test-'));
  app = await synthesizeApp({ context: CONTEXT, bundle: false, cacheDir });
  deployment = readDeployment(app.templates[ENV.stackName], ENV);
}, 240_000);
afterAll(async () => {
  await rm(cacheDir, { recursive: true, force: true });
});

describe('synthesizeApp', () => {
  it('should synthesize the app once and read the same sources from the cache', async () => {
    expect(app.cached).toBe(false);
    expect(Object.keys(app.templates)).toEqual([ENV.stackName]);
    const again = await synthesizeApp({ context: CONTEXT, bundle: false, cacheDir });
    expect(again).toMatchObject({ cached: true, key: app.key, assemblyDir: app.assemblyDir });
  });

  it('should fail with the app’s own message when the context is incomplete', async () => {
    await expect(synthesizeApp({ context: { clusterName: '' }, bundle: false, cacheDir })).rejects.toThrow(
      /missing context clusterName/,
    );
  });
});

describe('the deployed stack', () => {
  const fn = (prefix: string) => byLogicalId(deployment.functions, `demoFunctions${prefix}`);

  it('should give each function its template timeout and environment, resolved', () => {
    const [machine] = deployment.stateMachines;
    const [bus] = deployment.eventBuses;
    expect([fn('Events').timeoutSeconds, fn('Sweep').timeoutSeconds, fn('DrainStep').timeoutSeconds]).toEqual([
      60, 300, 60,
    ]);
    expect(fn('Events').environment).toMatchObject({
      CLUSTER_NAME: 'demo',
      DRAIN_STATE_MACHINE_ARN: machine?.arn,
      OUTPUT_EVENT_BUS_NAME: bus?.name,
    });
    expect(machine?.arn).toMatch(/^arn:aws:states:us-east-1:111122223333:stateMachine:/);
    expect(fn('Sweep').roleArn).toBe(byLogicalId(deployment.roles, 'demoFunctionsSweepRole').arn);
  });

  it('should hold the fixes of what issue #15 reported: one sweep at a time, no async retries, each function created after its policy', () => {
    const sweep = fn('Sweep');
    expect(sweep.reservedConcurrency).toBe(1);
    expect(sweep.async).toEqual({
      ...LAMBDA_ASYNC_DEFAULTS,
      maximumRetryAttempts: 0,
      maximumEventAgeSeconds: 300,
      explicit: true,
    });
    expect(sweep.dependsOn.some((id) => id.startsWith('demoSweepPolicy'))).toBe(true);
    expect(fn('Events').dependsOn.some((id) => id.startsWith('demoEventsPolicy'))).toBe(true);
    expect(fn('DrainStep').dependsOn.some((id) => id.startsWith('demoDrainStepPolicy'))).toBe(true);
    // The functions that are not invoked asynchronously keep Lambda's defaults.
    expect(fn('Events').async).toEqual({ ...LAMBDA_ASYNC_DEFAULTS, explicit: false });
  });

  it('should read the signal queue with its visibility timeout and dead-letter queue', () => {
    const queue = byLogicalId(deployment.queues, 'demoQueue');
    const dlq = byLogicalId(deployment.queues, 'demoDeadLetterQueue');
    expect(queue).toMatchObject({
      visibilityTimeoutSeconds: 360,
      deadLetter: { targetArn: dlq.arn, maxReceiveCount: 5 },
    });
    expect(queue.url).toBe(`https://sqs.us-east-1.amazonaws.com/111122223333/${queue.name}`);
  });

  it('should read every signal rule on the default bus, targeting the queue with the DLQ', () => {
    const queue = byLogicalId(deployment.queues, 'demoQueue');
    const dlq = byLogicalId(deployment.queues, 'demoDeadLetterQueue');
    expect(deployment.rules).toHaveLength(8);
    for (const rule of deployment.rules) {
      expect(rule).toMatchObject({ eventBusName: 'default', enabled: true });
      expect(rule.targets).toEqual([
        expect.objectContaining({
          arn: queue.arn,
          deadLetterArn: dlq.arn,
          maximumEventAgeSeconds: 86_400,
          maximumRetryAttempts: 185,
        }),
      ]);
    }
    expect(byLogicalId(deployment.rules, 'demoRulesSpotInterruption').eventPattern).toEqual({
      source: ['aws.ec2'],
      'detail-type': ['EC2 Spot Instance Interruption Warning'],
    });
  });

  it('should read the SQS event source mapping of the events function', () => {
    const [mapping] = deployment.eventSourceMappings;
    expect(mapping).toMatchObject({
      functionName: fn('Events').name,
      eventSourceArn: byLogicalId(deployment.queues, 'demoQueue').arn,
      batchSize: 25,
      batchingWindowSeconds: 1,
      maximumConcurrency: 2,
      reportBatchItemFailures: true,
    });
  });

  it('should read the drain state machine’s definition and role', () => {
    const [machine] = deployment.stateMachines;
    expect(machine).toMatchObject({
      type: 'STANDARD',
      roleArn: byLogicalId(deployment.roles, 'demoDrainWorkflowStateMachineRole').arn,
    });
    expect(machine?.definition).toMatchObject({
      StartAt: 'Start drain',
      QueryLanguage: 'JSONata',
      TimeoutSeconds: 86_400,
    });
  });

  it('should read the sweep schedule: rate, target, role and retries', () => {
    expect(deployment.schedules).toEqual([
      expect.objectContaining({
        expression: 'rate(10 minutes)',
        targetArn: fn('Sweep').arn,
        roleArn: byLogicalId(deployment.roles, 'demoSweepScheduleRole').arn,
        input: '{}',
        maximumRetryAttempts: 0,
      }),
    ]);
  });

  it('should read each role with the policies attached to it', () => {
    const sweep = byLogicalId(deployment.roles, 'demoFunctionsSweepRole');
    expect(sweep.assumedBy).toEqual(['lambda.amazonaws.com']);
    expect(sweep.policies.map((p) => p.name.replace(/[0-9A-F]{8}$/, ''))).toEqual([
      'demoFunctionsSweepRoleDefaultPolicy',
      'demoSweepPolicy',
    ]);
    const actions = sweep.policies.flatMap((p) => p.document.Statement.flatMap((s) => s.Action ?? []));
    expect(actions).toContain('autoscaling:DescribeLifecycleHooks');
  });
});

describe('Resolver', () => {
  const resolver = new Resolver(ENV, {
    Bus: { Type: 'AWS::Events::EventBus', Properties: { Name: 'out' } },
    Odd: { Type: 'Custom::Thing' },
  });

  it('should resolve Sub, Select and Split over pseudo parameters and resources', () => {
    expect(
      resolver.resolve({ 'Fn::Sub': 'arn:${AWS::Partition}:x:${AWS::Region}:${AWS::AccountId}:${Bus}/${Bus.Arn}' }),
    ).toBe('arn:aws:x:us-east-1:111122223333:out/arn:aws:events:us-east-1:111122223333:event-bus/out');
    expect(resolver.resolve({ 'Fn::Select': [1, { 'Fn::Split': [',', 'a,b,c'] }] })).toBe('b');
    expect(resolver.resolve({ 'Fn::Sub': ['${X}-${AWS::StackName}', { X: 'y' }] })).toBe(`y-${ENV.stackName}`);
  });

  it('should refuse what it cannot resolve, naming it', () => {
    expect(() => resolver.resolve({ Ref: 'Nowhere' })).toThrow(/no resource Nowhere/);
    expect(() => resolver.resolve({ 'Fn::GetAtt': ['Odd', 'Arn'] })).toThrow(/has no attribute Arn/);
    expect(() => resolver.resolve({ 'Fn::ImportValue': 'x' })).toThrow(/Fn::ImportValue is not supported/);
  });
});
