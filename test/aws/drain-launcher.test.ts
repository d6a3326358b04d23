// Starting the drain workflow under a deterministic name against the AWS emulator's Step Functions:
// what a launch says when the name exists — running, or ended (never "running" for a drain that ran).
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { madeClient } from '../../lib/aws/clients.js';
import { continuedAs, StepFunctionsDrainLauncher } from '../../lib/aws/drain-launcher.js';
import {
  chainExecutionName,
  executionOf,
  type DrainWorkflowInput,
} from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { toInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { startAwsEmulator, type AwsEmulator } from '@ec2-node-reconciler/sandbox/aws/index.js';

const START = Date.parse('2026-11-29T12:00:00Z');

let aws: AwsEmulator;
let sfn: SFNClient;
let launcher: StepFunctionsDrainLauncher;
let machineArn: string;

beforeEach(async () => {
  aws = await startAwsEmulator({ clock: new VirtualClock(START), region: 'us-east-1' });
  const machine = aws.state.seedStateMachine({ name: 'drain' });
  machineArn = machine.arn;
  sfn = new SFNClient({ ...aws.clientConfig(), maxAttempts: 1 });
  launcher = new StepFunctionsDrainLauncher(madeClient(sfn), machine.arn);
});
afterEach(async () => {
  sfn.destroy();
  await aws.close();
});

const INPUT: DrainWorkflowInput = {
  cluster: 'demo',
  node: 'ip-10-0-1-1.ec2.internal',
  nodeUid: 'uid-1',
  instanceId: toInstanceId('i-0123456789abcdef0'),
  deadline: '2026-11-29T12:02:00.000Z',
  reason: 'Spot interruption warning',
  cause: 'evt-1',
};

describe('StepFunctionsDrainLauncher.launch', () => {
  it('should start a drain once, and say another input under its name finds it running', async () => {
    expect(await launcher.launch(INPUT)).toBe('started');
    expect(await launcher.launch({ ...INPUT, reason: 'a later signal of the same cause' })).toBe('already-running');
    expect(aws.state.stepFunctions.executions()).toHaveLength(1);
  });

  it('should say a drain that ran under the name has ended, not that it runs, and start nothing', async () => {
    await launcher.launch(INPUT);
    aws.state.stepFunctions.finish(launcher.executionArn(executionOf(INPUT)), { status: 'SUCCEEDED', at: START });

    expect(await launcher.launch(INPUT)).toBe('already-ran');
    expect(aws.state.stepFunctions.executions({ status: 'RUNNING' })).toEqual([]);
  });
});

describe('StepFunctionsDrainLauncher.status across chained executions (issue #26)', () => {
  it('should follow an execution that continued the drain in a chained one, so a hop never reads as the drain’s end', async () => {
    const record = executionOf(INPUT);
    const next = chainExecutionName(record, 1);
    await launcher.launch(INPUT);
    await sfn.send(new StartExecutionCommand({ stateMachineArn: machineArn, name: next, input: '{}' }));
    // The first link ended by continuing the drain, as the workflow's "Continued in a new execution" does.
    aws.state.stepFunctions.finish(launcher.executionArn(record), {
      status: 'SUCCEEDED',
      at: START,
      output: JSON.stringify({ continuedAs: next }),
    });
    expect((await launcher.status([record])).get(record)).toEqual({ status: 'running' });

    // The chained link ended the drain for good.
    aws.state.stepFunctions.finish(launcher.executionArn(next), {
      status: 'FAILED',
      at: START,
      error: 'DrainIncomplete',
    });
    expect((await launcher.status([record])).get(record)).toEqual({ status: 'ended' });
  });

  it('should read an output that names no continuation as an end, whatever it holds', () => {
    expect(continuedAs(undefined)).toBeUndefined();
    expect(continuedAs('{"outcome":"done"}')).toBeUndefined();
    expect(continuedAs('not json')).toBeUndefined();
    expect(continuedAs('{"continuedAs":"demo-x-c2"}')).toBe('demo-x-c2');
  });
});
