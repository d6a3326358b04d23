import { describe, expect, it } from 'vitest';
import { outcomeOf, passed, readFailed, readOk, unknown, failed } from '../../cli/doctor/check.js';
import { checkFunction } from '../../cli/doctor/functions.js';
import { checkStack, NEEDED_OUTPUTS } from '../../cli/doctor/stack.js';
import { clusterOutputs, STACK_OUTPUTS } from '@ec2-node-reconciler/model/contract/stack-outputs.js';

const outputs = NEEDED_OUTPUTS.map((name, i) => ({
  OutputKey: `demo${STACK_OUTPUTS[name]}${String(i).padStart(8, '0')}`,
  OutputValue: `value-${name}`,
  Description: 'demo: something',
}));

describe('checkStack', () => {
  it('should pass a settled stack with the cluster’s outputs, and hand them over', () => {
    const result = checkStack(
      'ec2-node-reconciler-demo',
      'demo',
      'eu-west-1',
      readOk({ status: 'UPDATE_COMPLETE', outputs }),
    );

    expect(result.check.status).toBe('pass');
    expect(result.outputs?.sweepRoleArn).toBe('value-sweepRoleArn');
  });

  it('should fail a missing stack with the deploy command, a failed one with its events, one without outputs', () => {
    const missing = checkStack('mine', 'demo', 'eu-west-1', readOk(undefined));
    const rolledBack = checkStack(
      'ec2-node-reconciler-demo',
      'demo',
      'eu-west-1',
      readOk({ status: 'ROLLBACK_COMPLETE', outputs }),
    );
    const otherCluster = checkStack(
      'ec2-node-reconciler-demo',
      'prod',
      'eu-west-1',
      readOk({ status: 'CREATE_COMPLETE', outputs }),
    );

    expect(missing.check.fix).toBe(
      'deploy it (npx cdk deploy -c clusterName=demo -c region=eu-west-1 -c stackName=mine), or name yours with --stack',
    );
    expect(rolledBack.check.fix).toContain(
      'aws cloudformation describe-stack-events --stack-name ec2-node-reconciler-demo',
    );
    expect(otherCluster.check.status).toBe('fail');
    expect(otherCluster.check.detail).toContain('no output SweepFunctionName');
  });

  it('should not judge a stack while a deployment is under way, nor one it could not read', () => {
    expect(checkStack('s', 'demo', 'eu-west-1', readOk({ status: 'UPDATE_IN_PROGRESS', outputs })).check.status).toBe(
      'unknown',
    );
    expect(checkStack('s', 'demo', 'eu-west-1', readFailed('AccessDenied')).check.status).toBe('unknown');
  });
});

describe('checkFunction', () => {
  const facts = { state: 'Active', lastUpdateStatus: 'Successful', role: 'arn:role', logGroup: 'g', environment: {} };
  const check = (f: Partial<typeof facts> & { stateReason?: string }) =>
    checkFunction({
      label: 'sweep',
      name: 'fn',
      roleArn: 'arn:role',
      facts: readOk({ ...facts, ...f }),
      deployCommand: 'd',
    });

  it('should pass an Active function with the stack’s role; fail a Failed one, one with another role; wait for one updating', () => {
    expect(check({}).status).toBe('pass');
    expect(check({ state: 'Failed', stateReason: 'bad zip' }).detail).toBe(
      'fn: Failed, last update Successful (bad zip)',
    );
    expect(check({ role: 'arn:other' }).status).toBe('fail');
    expect(check({ lastUpdateStatus: 'InProgress' }).status).toBe('unknown');
  });
});

describe('outcomeOf', () => {
  it('should fail on any failed check, else be unknown on any unknown one, else pass', () => {
    const ok = passed('a', 'b', 'c');
    expect(outcomeOf([ok])).toBe('pass');
    expect(outcomeOf([ok, unknown('a', 'b', 'c')])).toBe('unknown');
    expect(outcomeOf([unknown('a', 'b', 'c'), failed('a', 'b', 'c', 'd')])).toBe('fail');
  });
});

describe('clusterOutputs', () => {
  it('should take one cluster’s outputs from a stack of several, by key and description', () => {
    const stack = [
      { OutputKey: 'abSweepFunctionName1A2B3C4D', OutputValue: 'of-a-b', Description: 'a-b: sweep function' },
      { OutputKey: 'abSweepFunctionName5E6F7A8B', OutputValue: 'of-ab', Description: 'ab: sweep function' },
      { OutputKey: 'aSweepFunctionName9C0D1E2F', OutputValue: 'of-a', Description: 'a: sweep function' },
    ];

    expect(clusterOutputs('a-b', stack).sweepFunctionName).toBe('of-a-b');
    expect(clusterOutputs('ab', stack).sweepFunctionName).toBe('of-ab');
    expect(clusterOutputs('a', stack).sweepFunctionName).toBe('of-a');
    expect(clusterOutputs('c', stack)).toEqual({});
  });
});
