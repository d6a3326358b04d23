// Oracle 1, a real client: the AWS CLI (v2 from the Debian package at /usr/bin/aws, else v1 on
// PATH) drives the emulator over HTTP with dummy credentials. Each test has its own emulator so
// the slow-starting CLI processes (~0.5 s of CPU each) run concurrently.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { runToCompletion, startExecution } from '../../src/sfn/index.js';
import { describeWithOracle, findAwsCli, runCli, type AwsCli, type CliResult } from './support/oracles.js';
import { anInstance, instanceId, START, startWorld, type World } from './support/world.js';

const cli = findAwsCli();
const MACHINE_ARN = 'arn:aws:states:us-east-1:111122223333:stateMachine:drain';

async function withWorld<T>(
  run: (world: World) => Promise<T>,
  options: Parameters<typeof startWorld>[0] = {},
): Promise<T> {
  const world = await startWorld(options);
  try {
    return await run(world);
  } finally {
    await world.close();
  }
}

const ok = (result: CliResult): unknown => {
  if (result.code !== 0) throw new Error(`aws exited ${result.code}: ${result.stderr}`);
  return result.json;
};
const failed = (result: CliResult, code: string): void => {
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain(`An error occurred (${code})`);
};

type Reservations = {
  Reservations: { Instances: { InstanceId: string; State: { Name: string }; PrivateDnsName: string }[] }[];
};
const ids = (json: unknown): string[] =>
  (json as Reservations).Reservations.flatMap((r) => r.Instances.map((i) => i.InstanceId));

function cliSuite(cli: AwsCli): void {
  const aws = (world: World, ...args: string[]): Promise<CliResult> => runCli(cli, world.aws.endpoint, args);

  // Some tests run ten CLI processes one after another, each ~0.5 s of CPU: on two busy cores that outlasts the default minute.
  describe.concurrent(cli.version, { timeout: 180_000 }, () => {
    it('should describe instances by id, and fail on unknown and malformed ids', () =>
      withWorld(async (world) => {
        world.aws.state.seedInstance(anInstance(1));
        world.aws.state.seedInstance(anInstance(2, { state: 'terminated' }));

        const [found, unknown, malformed] = await Promise.all([
          aws(world, 'ec2', 'describe-instances', '--instance-ids', instanceId(1), instanceId(2)),
          aws(world, 'ec2', 'describe-instances', '--instance-ids', instanceId(1), instanceId(3)),
          aws(world, 'ec2', 'describe-instances', '--instance-ids', 'i-12345'),
        ]);

        expect(ids(ok(found))).toEqual([instanceId(1), instanceId(2)]);
        failed(unknown, 'InvalidInstanceID.NotFound');
        expect(unknown.stderr).toContain(`The instance ID '${instanceId(3)}' does not exist`);
        failed(malformed, 'InvalidInstanceID.Malformed');
      }));

    it('should filter by tag, state, private DNS name and instance id', () =>
      withWorld(async (world) => {
        world.aws.state.seedInstance(anInstance(1, { privateDnsName: 'ip-10-0-0-1.ec2.internal' }));
        world.aws.state.seedInstance(anInstance(2, { state: 'stopped' }));
        world.aws.state.seedInstance(anInstance(3, { tags: { other: 'x' } }));

        const [tagged, dns, byId] = await Promise.all([
          aws(
            world,
            'ec2',
            'describe-instances',
            '--filters',
            'Name=tag:eks:cluster-name,Values=demo',
            'Name=instance-state-name,Values=running,pending',
          ),
          aws(world, 'ec2', 'describe-instances', '--filters', 'Name=private-dns-name,Values=ip-10-0-0-1.ec2.internal'),
          aws(
            world,
            'ec2',
            'describe-instances',
            '--filters',
            `Name=instance-id,Values=${instanceId(3)},${instanceId(9)}`,
          ),
        ]);

        expect(ids(ok(tagged))).toEqual([instanceId(1)]);
        expect(ids(ok(dns))).toEqual([instanceId(1)]);
        expect(ids(ok(byId))).toEqual([instanceId(3)]);
      }));

    it('should paginate: the CLI follows NextToken with --page-size and hands it out with --max-items', () =>
      withWorld(async (world) => {
        for (let n = 1; n <= 12; n++) world.aws.state.seedInstance(anInstance(n));

        const all = await aws(world, 'ec2', 'describe-instances', '--page-size', '5');
        const pages = world.aws.requestLog.filter({ operation: 'DescribeInstances' }).map((e) => e.params);
        const first = ok(await aws(world, 'ec2', 'describe-instances', '--max-items', '3')) as Reservations & {
          NextToken: string;
        };
        const rest = await aws(
          world,
          'ec2',
          'describe-instances',
          '--max-items',
          '20',
          '--starting-token',
          first.NextToken,
        );

        expect(ids(ok(all))).toEqual(Array.from({ length: 12 }, (_, i) => instanceId(i + 1)));
        expect(pages).toEqual([
          { MaxResults: '5' },
          { MaxResults: '5', NextToken: expect.any(String) as unknown },
          { MaxResults: '5', NextToken: expect.any(String) as unknown },
        ]);
        expect(ids(first)).toHaveLength(3);
        expect(ids(ok(rest))).toEqual(Array.from({ length: 9 }, (_, i) => instanceId(i + 4)));
      }));

    it('should describe instance status with scheduled events, all instances or running ones', () =>
      withWorld(async (world) => {
        world.aws.state.seedInstance(
          anInstance(1, { scheduledEvents: [{ code: 'instance-retirement', notBefore: '2d' }] }),
        );
        world.aws.state.seedInstance(anInstance(2, { state: 'stopped' }));

        const [all, running] = await Promise.all([
          aws(world, 'ec2', 'describe-instance-status', '--include-all-instances'),
          aws(world, 'ec2', 'describe-instance-status'),
        ]);

        type Statuses = {
          InstanceStatuses: {
            InstanceId: string;
            InstanceState: { Name: string };
            Events?: { Code: string; NotBefore: string }[];
          }[];
        };
        const statuses = (ok(all) as Statuses).InstanceStatuses;
        expect(statuses.map((s) => [s.InstanceId, s.InstanceState.Name])).toEqual([
          [instanceId(1), 'running'],
          [instanceId(2), 'stopped'],
        ]);
        expect(statuses[0]?.Events?.map((e) => [e.Code, new Date(e.NotBefore).toISOString()])).toEqual([
          ['instance-retirement', '2026-12-01T12:00:00.000Z'],
        ]);
        expect((ok(running) as Statuses).InstanceStatuses.map((s) => s.InstanceId)).toEqual([instanceId(1)]);
      }));

    it('should tag, untag and terminate', () =>
      withWorld(async (world) => {
        world.aws.state.seedInstance(anInstance(1, { tags: { old: 'x' } }));

        ok(
          await aws(
            world,
            'ec2',
            'create-tags',
            '--resources',
            instanceId(1),
            '--tags',
            'Key=ec2-node-reconciler/decommission,Value=true',
          ),
        );
        ok(await aws(world, 'ec2', 'delete-tags', '--resources', instanceId(1), '--tags', 'Key=old'));
        const terminated = ok(await aws(world, 'ec2', 'terminate-instances', '--instance-ids', instanceId(1))) as {
          TerminatingInstances: { CurrentState: { Name: string } }[];
        };

        expect(world.aws.state.instanceView(instanceId(1))?.tags).toEqual({
          'ec2-node-reconciler/decommission': 'true',
        });
        expect(terminated.TerminatingInstances[0]?.CurrentState.Name).toBe('shutting-down');
      }));

    it('should retry a throttled call (RequestLimitExceeded) and succeed', () =>
      withWorld(async (world) => {
        world.aws.state.seedInstance(anInstance(1));
        world.aws.faults.throttle({ service: 'ec2', count: 2 });

        const result = await aws(world, 'ec2', 'describe-instances');

        expect(ids(ok(result))).toEqual([instanceId(1)]);
        expect(world.aws.requestLog.entries.map((e) => e.status)).toEqual([503, 503, 200]);
      }));

    it('should complete lifecycle actions, heartbeat, set health and describe Auto Scaling instances', () =>
      withWorld(async (world) => {
        world.aws.state.seedInstance(
          anInstance(1, { autoScaling: { group: 'ng-a', lifecycleState: 'Terminating:Wait', hook: 'drain-hook' } }),
        );
        world.aws.state.seedInstance(anInstance(2, { autoScaling: { group: 'ng-a' } }));
        const action = [
          '--auto-scaling-group-name',
          'ng-a',
          '--lifecycle-hook-name',
          'drain-hook',
          '--instance-id',
          instanceId(1),
        ];

        const before = ok(await aws(world, 'autoscaling', 'describe-auto-scaling-instances')) as {
          AutoScalingInstances: { InstanceId: string; LifecycleState: string }[];
        };
        ok(await aws(world, 'autoscaling', 'record-lifecycle-action-heartbeat', ...action));
        const wrongHook = await aws(
          world,
          'autoscaling',
          'complete-lifecycle-action',
          '--auto-scaling-group-name',
          'ng-a',
          '--lifecycle-hook-name',
          'other',
          '--instance-id',
          instanceId(1),
          '--lifecycle-action-result',
          'CONTINUE',
        );
        ok(
          await aws(
            world,
            'autoscaling',
            'complete-lifecycle-action',
            ...action,
            '--lifecycle-action-result',
            'CONTINUE',
          ),
        );
        ok(
          await aws(
            world,
            'autoscaling',
            'set-instance-health',
            '--instance-id',
            instanceId(2),
            '--health-status',
            'Unhealthy',
          ),
        );
        const after = ok(
          await aws(
            world,
            'autoscaling',
            'describe-auto-scaling-instances',
            '--instance-ids',
            instanceId(1),
            instanceId(2),
          ),
        ) as typeof before;

        expect(before.AutoScalingInstances.map((i) => [i.InstanceId, i.LifecycleState])).toEqual([
          [instanceId(1), 'Terminating:Wait'],
          [instanceId(2), 'InService'],
        ]);
        failed(wrongHook, 'ValidationError');
        expect(world.aws.state.autoScaling.completions.map((c) => [c.instanceId, c.result])).toEqual([
          [instanceId(1), 'CONTINUE'],
        ]);
        expect(world.aws.state.autoScaling.heartbeats).toHaveLength(1);
        expect(after.AutoScalingInstances.map((i) => [i.InstanceId, i.LifecycleState])).toEqual([
          [instanceId(1), 'Terminating:Proceed'],
          // Unhealthy: Auto Scaling replaces it, through the group's termination hook.
          [instanceId(2), 'Terminating:Wait'],
        ]);
      }));

    it('should describe an EKS cluster and report identity', () =>
      withWorld(async (world) => {
        world.aws.state.seedCluster({
          name: 'demo',
          endpoint: 'https://127.0.0.1:6443',
          certificateAuthorityData: 'Q0E=',
        });

        const [cluster, missing, identity] = await Promise.all([
          aws(world, 'eks', 'describe-cluster', '--name', 'demo'),
          aws(world, 'eks', 'describe-cluster', '--name', 'nope'),
          aws(world, 'sts', 'get-caller-identity'),
        ]);

        expect((ok(cluster) as { cluster: unknown }).cluster).toMatchObject({
          name: 'demo',
          endpoint: 'https://127.0.0.1:6443',
          certificateAuthority: { data: 'Q0E=' },
          status: 'ACTIVE',
        });
        failed(missing, 'ResourceNotFoundException');
        expect(ok(identity)).toEqual({
          UserId: expect.stringMatching(/^AIDA/) as unknown,
          Account: '111122223333',
          Arn: 'arn:aws:iam::111122223333:user/sandbox-admin',
        });
      }));

    it('should accept the token `aws eks get-token` makes, for its cluster only', () =>
      // The CLI signs with the real time: the emulator's clock must agree.
      withWorld(
        async (world) => {
          const out = ok(await aws(world, 'eks', 'get-token', '--cluster-name', 'demo')) as {
            status: { token: string };
          };

          expect(await world.aws.verifyEksToken(out.status.token, 'demo')).toMatchObject({
            ok: true,
            arn: 'arn:aws:iam::111122223333:user/sandbox-admin',
          });
          expect(await world.aws.verifyEksToken(out.status.token, 'prod')).toMatchObject({ ok: false });
        },
        { start: new VirtualClock(Date.now()).now() },
      ));

    it('should put events with per-entry failures', () =>
      withWorld(async (world) => {
        const entries = [
          { Source: 'ec2-node-reconciler', DetailType: 'Node Deleted', Detail: '{"node":"n1"}' },
          { Source: 'ec2-node-reconciler', DetailType: 'Node Drained', Detail: '{not json' },
        ];

        const out = ok(await aws(world, 'events', 'put-events', '--entries', JSON.stringify(entries))) as {
          FailedEntryCount: number;
          Entries: { EventId?: string; ErrorCode?: string }[];
        };

        expect(out.FailedEntryCount).toBe(1);
        expect(out.Entries.map((e) => e.ErrorCode ?? 'ok')).toEqual(['ok', 'MalformedDetail']);
        expect(world.aws.state.eventBus.events.map((e) => [e.detailType, e.detail])).toEqual([
          ['Node Deleted', { node: 'n1' }],
        ]);
      }));

    it('should start an execution idempotently and refuse a duplicate name with other input', () =>
      withWorld(async (world) => {
        world.aws.state.seedStateMachine({ name: 'drain' });
        const start = (input: string): Promise<CliResult> =>
          aws(
            world,
            'stepfunctions',
            'start-execution',
            '--state-machine-arn',
            MACHINE_ARN,
            '--name',
            'demo-i-1',
            '--input',
            input,
          );

        const first = ok(await start('{"a":1}')) as { executionArn: string };
        const same = ok(await start('{"a":1}')) as { executionArn: string };
        const other = await start('{"a":2}');
        const described = ok(
          await aws(world, 'stepfunctions', 'describe-execution', '--execution-arn', first.executionArn),
        ) as { status: string; input: string };

        expect(first.executionArn).toBe('arn:aws:states:us-east-1:111122223333:execution:drain:demo-i-1');
        expect(same.executionArn).toBe(first.executionArn);
        failed(other, 'ExecutionAlreadyExists');
        expect(described).toMatchObject({ status: 'RUNNING', input: '{"a":1}' });
      }));

    it('should list executions newest first, by status and page by page, and read an execution’s history either way', () =>
      withWorld(async (world) => {
        world.aws.state.seedStateMachine({ name: 'drain' });
        const arnOf = (name: string) => `${MACHINE_ARN.replace(':stateMachine:', ':execution:')}:${name}`;
        const steps = world.aws.state.stepFunctions;
        for (const name of ['first', 'second', 'third']) {
          await world.sfn.send(new StartExecutionCommand({ stateMachineArn: MACHINE_ARN, name, input: '{"n":1}' }));
          world.clock.advance(60_000);
        }
        // `second` ran in the interpreter (its history is the interpreter's), then ended; `first` failed.
        const run = startExecution({
          definition: {
            QueryLanguage: 'JSONata',
            StartAt: 'Drain step',
            States: {
              'Drain step': {
                Type: 'Task',
                Resource: 'arn:aws:states:::lambda:invoke',
                Arguments: { FunctionName: 'drain-step', Payload: '{% $states.input %}' },
                Next: 'Drained',
              },
              Drained: { Type: 'Succeed' },
            },
          },
          input: { n: 1 },
          clock: world.clock,
          name: 'second',
          tasks: { lambdaInvoke: () => Promise.resolve({ outcome: 'done', left: 0 }) },
        });
        const result = await runToCompletion(run, world.clock);
        steps.attachHistory(arnOf('second'), () => run.history);
        steps.finish(arnOf('second'), {
          status: 'SUCCEEDED',
          at: result.stopDate,
          output: JSON.stringify(result.output),
        });
        steps.finish(arnOf('first'), {
          status: 'FAILED',
          at: world.clock.now(),
          error: 'DrainIncomplete',
          cause: 'pods left',
        });

        const [all, running, paged, missing, history, newest, failedHistory, unknown] = await Promise.all([
          aws(world, 'stepfunctions', 'list-executions', '--state-machine-arn', MACHINE_ARN),
          aws(
            world,
            'stepfunctions',
            'list-executions',
            '--state-machine-arn',
            MACHINE_ARN,
            '--status-filter',
            'RUNNING',
          ),
          aws(world, 'stepfunctions', 'list-executions', '--state-machine-arn', MACHINE_ARN, '--page-size', '1'),
          aws(world, 'stepfunctions', 'list-executions', '--state-machine-arn', MACHINE_ARN.replace(':drain', ':nope')),
          aws(world, 'stepfunctions', 'get-execution-history', '--execution-arn', arnOf('second')),
          aws(
            world,
            'stepfunctions',
            'get-execution-history',
            '--execution-arn',
            arnOf('second'),
            '--reverse-order',
            '--max-items',
            '2',
          ),
          aws(world, 'stepfunctions', 'get-execution-history', '--execution-arn', arnOf('first')),
          aws(world, 'stepfunctions', 'get-execution-history', '--execution-arn', arnOf('nope')),
        ]);

        type Listed = {
          executions: { name: string; status: string; startDate: string | number; stopDate?: string | number }[];
        };
        // v1 prints the wire's epoch seconds as they came, v2 ISO 8601.
        const epochMs = (t: string | number) => (typeof t === 'number' ? t * 1000 : Date.parse(t));
        const listed = ok(all) as Listed;
        expect(listed.executions.map((e) => [e.name, e.status])).toEqual([
          ['third', 'RUNNING'],
          ['second', 'SUCCEEDED'],
          ['first', 'FAILED'],
        ]);
        expect(listed.executions.map((e) => epochMs(e.startDate))).toEqual([START + 120_000, START + 60_000, START]);
        expect(listed.executions.map((e) => e.stopDate === undefined)).toEqual([true, false, false]);
        expect((ok(running) as Listed).executions.map((e) => e.name)).toEqual(['third']);
        expect((ok(paged) as Listed).executions.map((e) => e.name)).toEqual(['third', 'second', 'first']);
        expect(world.aws.requestLog.filter({ operation: 'ListExecutions' }).map((e) => e.params)).toContainEqual({
          stateMachineArn: MACHINE_ARN,
          maxResults: 1,
          nextToken: expect.any(String) as unknown,
        });
        failed(missing, 'StateMachineDoesNotExist');

        type History = {
          events: {
            id: number;
            type: string;
            previousEventId: number;
            timestamp: string | number;
            stateEnteredEventDetails?: { name: string; input: string };
            taskSucceededEventDetails?: { resourceType: string; resource: string; output: string };
            executionFailedEventDetails?: { error: string; cause: string };
          }[];
          NextToken?: string;
        };
        const events = (ok(history) as History).events;
        expect(events.map((e) => e.type)).toEqual([
          'ExecutionStarted',
          'TaskStateEntered',
          'TaskScheduled',
          'TaskStarted',
          'TaskSucceeded',
          'TaskStateExited',
          'SucceedStateEntered',
          'SucceedStateExited',
          'ExecutionSucceeded',
        ]);
        expect(events.map((e) => e.previousEventId)).toEqual(events.map((e) => e.id - 1));
        expect(events[1]?.stateEnteredEventDetails).toEqual({
          name: 'Drain step',
          input: '{"n":1}',
          inputDetails: { truncated: false },
        });
        const succeeded = events.find((e) => e.type === 'TaskSucceeded')?.taskSucceededEventDetails;
        expect(succeeded).toMatchObject({ resourceType: 'lambda', resource: 'invoke' });
        expect(JSON.parse(succeeded?.output ?? '{}')).toMatchObject({ Payload: { outcome: 'done', left: 0 } });
        const latest = ok(newest) as History;
        expect(latest.events.map((e) => e.type)).toEqual(['ExecutionSucceeded', 'SucceedStateExited']);
        expect(latest.NextToken).toEqual(expect.any(String));
        // An execution nobody ran in the interpreter: what its record tells.
        expect((ok(failedHistory) as History).events).toMatchObject([
          { type: 'ExecutionStarted', id: 1 },
          {
            type: 'ExecutionFailed',
            id: 2,
            executionFailedEventDetails: { error: 'DrainIncomplete', cause: 'pods left' },
          },
        ]);
        failed(unknown, 'ExecutionDoesNotExist');
      }));

    it('should invoke a function and write its result, or its error with FunctionError', () =>
      withWorld(async (world) => {
        world.aws.state.functions.register('sweep', (payload) =>
          payload && typeof payload === 'object' && 'fail' in payload
            ? Promise.reject(new Error('refused'))
            : Promise.resolve({ report: payload }),
        );
        const dir = mkdtempSync(join(tmpdir(), 'lambda-invoke-'));
        const out = (name: string) => join(dir, name);
        // v2 takes --payload as base64 unless told otherwise; v1 takes it raw.
        const raw = cli.major === 2 ? ['--cli-binary-format', 'raw-in-base64-out'] : [];
        const invoke = (payload: string, file: string) =>
          aws(world, 'lambda', 'invoke', '--function-name', 'sweep', '--payload', payload, ...raw, out(file));

        const [success, failure, missing] = await Promise.all([
          invoke('{"dryRun":true}', 'ok.json'),
          invoke('{"fail":1}', 'failed.json'),
          aws(world, 'lambda', 'invoke', '--function-name', 'nope', out('nope.json')),
        ]);

        expect(ok(success)).toMatchObject({ StatusCode: 200, ExecutedVersion: '$LATEST' });
        expect(JSON.parse(readFileSync(out('ok.json'), 'utf8'))).toEqual({ report: { dryRun: true } });
        expect(ok(failure)).toMatchObject({ StatusCode: 200, FunctionError: 'Unhandled' });
        expect(JSON.parse(readFileSync(out('failed.json'), 'utf8'))).toMatchObject({
          errorType: 'Error',
          errorMessage: 'refused',
        });
        failed(missing, 'ResourceNotFoundException');
        rmSync(dir, { recursive: true, force: true });
      }));
  });
}

describeWithOracle(
  'AWS CLI against the emulator',
  cli ? undefined : 'no AWS CLI: neither /usr/bin/aws (apt-get install awscli) nor `aws` on PATH',
  () => {
    if (cli) cliSuite(cli);
  },
);
