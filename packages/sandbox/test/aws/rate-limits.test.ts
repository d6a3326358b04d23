// EC2's request rate limiting (src/aws/rate-limits.ts): the documented bucket of each action
// category, per account and Region, on the emulator's clock; and RequestLimitExceeded answered as
// EC2 answers it, held to the SDK v3 (a throttling error, retried; adaptive mode too) and to the
// AWS CLI.
import { DescribeInstancesCommand, DescribeInstanceStatusCommand, EC2Client } from '@aws-sdk/client-ec2';
import { isThrottlingError } from '@smithy/service-error-classification';
import { describe, expect, it } from 'vitest';
import { systemClock } from '@ec2-node-reconciler/model/clock.js';
import { DEFAULT_CREDENTIALS, startAwsEmulator } from '../../src/aws/index.js';
import { ec2RequestBucket } from '../../src/aws/rate-limits.js';
import { describeWithOracle, findAwsCli, runCli } from './support/oracles.js';
import { anInstance, instanceId, startWorld, type World } from './support/world.js';

const FILTERED = { Filters: [{ Name: 'instance-id', Values: [instanceId(1)] }] };

async function withWorld<T>(run: (world: World) => Promise<T>): Promise<T> {
  const world = await startWorld({ rateLimits: true });
  world.aws.state.seedInstance(anInstance(1));
  try {
    return await run(world);
  } finally {
    await world.close();
  }
}

/** A client that never retries: each call is one request, its refusal the caller's to see. */
const oneShot = (world: World) => new EC2Client({ ...world.aws.clientConfig(), maxAttempts: 1 });

/** Sends `count` requests at once; how many were refused with RequestLimitExceeded. */
async function burst(count: number, send: () => Promise<unknown>): Promise<number> {
  const outcomes = await Promise.allSettled(Array.from({ length: count }, send));
  return outcomes.filter((o) => o.status === 'rejected' && (o.reason as Error).name === 'RequestLimitExceeded').length;
}

describe('EC2 rate limits: the documented buckets', () => {
  it('should put each action in its category: filtered Describe* 100/20, unfiltered DescribeInstances 50/10, mutating 50/5, CreateTags its own', () => {
    expect(ec2RequestBucket('DescribeInstances', { Filter: [{ Name: 'instance-id' }] }).spec).toEqual({
      capacity: 100,
      refillPerSecond: 20,
    });
    expect(ec2RequestBucket('DescribeInstances', { MaxResults: '1000' }).spec).toEqual({
      capacity: 100,
      refillPerSecond: 20,
    });
    expect(ec2RequestBucket('DescribeInstances', {}).spec).toEqual({ capacity: 50, refillPerSecond: 10 });
    expect(ec2RequestBucket('DescribeInstances', { InstanceId: [instanceId(1)] }).spec).toEqual({
      capacity: 50,
      refillPerSecond: 10,
    });
    expect(ec2RequestBucket('DescribeInstanceStatus', {}).name).toBe(
      'DescribeInstanceStatus (unfiltered, unpaginated)',
    );
    expect(ec2RequestBucket('DescribeRouteTables', {}).spec).toEqual({ capacity: 100, refillPerSecond: 20 });
    expect(ec2RequestBucket('ModifyInstanceAttribute', {}).spec).toEqual({ capacity: 50, refillPerSecond: 5 });
    expect(ec2RequestBucket('CreateTags', {}).spec).toEqual({ capacity: 100, refillPerSecond: 10 });
    expect(ec2RequestBucket('TerminateInstances', {}).spec).toEqual({ capacity: 100, refillPerSecond: 5 });
  });

  it('should serve a full bucket’s burst at one instant, refuse the next request, and refill on the clock', () =>
    withWorld(async (world) => {
      const ec2 = oneShot(world);
      const describe = () => ec2.send(new DescribeInstancesCommand(FILTERED));

      expect(await burst(100, describe)).toBe(0);
      expect(await burst(1, describe)).toBe(1);
      // The virtual clock has not moved: nothing refilled. A second brings 20 tokens.
      world.clock.advance(1_000);
      expect(await burst(21, describe)).toBe(1);
      world.clock.advance(250);
      expect(await burst(6, describe)).toBe(1);
      expect(world.aws.rateLimits?.throttled.map((t) => t.bucket)).toEqual([
        'DescribeInstances',
        'DescribeInstances',
        'DescribeInstances',
      ]);
      ec2.destroy();
    }));

  it('should serve the callers it may not refuse from the same bucket, leaving the others what is left', async () => {
    const fn = { accessKeyId: 'ASIAFUNCTIONEXAMPLE1', secretAccessKey: 'function-secret' };
    const world = await startWorld({
      credentials: [DEFAULT_CREDENTIALS, fn],
      rateLimits: { mayRefuse: (key) => key === fn.accessKeyId },
    });
    try {
      const operator = oneShot(world);
      const theFunction = new EC2Client({ ...world.aws.clientConfig(), credentials: fn, maxAttempts: 1 });
      // The operator's 120 are all served; they emptied the bucket the function shares.
      expect(await burst(120, () => operator.send(new DescribeInstancesCommand(FILTERED)))).toBe(0);
      expect(await burst(1, () => theFunction.send(new DescribeInstancesCommand(FILTERED)))).toBe(1);
      world.clock.advance(1_000);
      expect(await burst(21, () => theFunction.send(new DescribeInstancesCommand(FILTERED)))).toBe(1);
      operator.destroy();
      theFunction.destroy();
    } finally {
      await world.close();
    }
  });

  it('should take no token for the callers it does not meter (a replay’s planner), leaving the bucket whole', async () => {
    const planner = { accessKeyId: 'ASIAPLANNEREXAMPLE1', secretAccessKey: 'planner-secret' };
    const fn = { accessKeyId: 'ASIAFUNCTIONEXAMPLE1', secretAccessKey: 'function-secret' };
    const world = await startWorld({
      credentials: [DEFAULT_CREDENTIALS, planner, fn],
      rateLimits: { mayRefuse: (key) => key === fn.accessKeyId, metered: (key) => key !== planner.accessKeyId },
    });
    try {
      const thePlanner = new EC2Client({ ...world.aws.clientConfig(), credentials: planner, maxAttempts: 1 });
      const theFunction = new EC2Client({ ...world.aws.clientConfig(), credentials: fn, maxAttempts: 1 });
      expect(await burst(150, () => thePlanner.send(new DescribeInstancesCommand(FILTERED)))).toBe(0);
      // The bucket (100) is whole for the function: its 100 are served, the 101st refused.
      expect(await burst(101, () => theFunction.send(new DescribeInstancesCommand(FILTERED)))).toBe(1);
      thePlanner.destroy();
      theFunction.destroy();
    } finally {
      await world.close();
    }
  });

  it('should keep each API’s bucket, the unfiltered one, and each Region apart', () =>
    withWorld(async (world) => {
      const ec2 = oneShot(world);
      const unfiltered = () => ec2.send(new DescribeInstancesCommand({}));
      expect(await burst(51, unfiltered)).toBe(1);
      // The filtered bucket, another API's and another Region's are untouched.
      expect(await burst(100, () => ec2.send(new DescribeInstancesCommand(FILTERED)))).toBe(0);
      expect(await burst(1, () => ec2.send(new DescribeInstanceStatusCommand({ MaxResults: 100 })))).toBe(0);
      const elsewhere = new EC2Client({ ...world.aws.clientConfig(), region: 'eu-west-1', maxAttempts: 1 });
      expect(await burst(50, () => elsewhere.send(new DescribeInstancesCommand({})))).toBe(0);
      ec2.destroy();
      elsewhere.destroy();
    }));

  it('should answer RequestLimitExceeded as EC2 does: HTTP 503, the EC2 error document, a throttling error to the SDK', () =>
    withWorld(async (world) => {
      const ec2 = oneShot(world);
      await burst(50, () => ec2.send(new DescribeInstancesCommand({})));

      const error: unknown = await ec2.send(new DescribeInstancesCommand({})).catch((e: unknown) => e);
      const raw = await fetch(world.aws.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: 'Action=DescribeInstances&Version=2016-11-15',
      });

      expect(error).toMatchObject({
        name: 'RequestLimitExceeded',
        message: `Request limit exceeded. Account ${world.aws.accountId} has been throttled on ec2:DescribeInstances because it exceeded its request rate limit.`,
        $metadata: { httpStatusCode: 503 },
      });
      expect(isThrottlingError(error as Parameters<typeof isThrottlingError>[0])).toBe(true);
      expect(raw.status).toBe(503);
      expect(await raw.text()).toMatch(
        /^<\?xml version="1\.0" encoding="UTF-8"\?>\s*<Response><Errors><Error><Code>RequestLimitExceeded<\/Code><Message>Request limit exceeded\. Account \d{12} has been throttled on ec2:DescribeInstances because it exceeded its request rate limit\.<\/Message><\/Error><\/Errors><RequestID>[0-9a-f-]{36}<\/RequestID><\/Response>$/,
      );
      ec2.destroy();
    }));

  it('should be ridden out by the SDK’s adaptive retry on the wall clock: every call of a burst over the bucket succeeds', async () => {
    const aws = await startAwsEmulator({ clock: systemClock, rateLimits: true });
    const ec2 = new EC2Client({ ...aws.clientConfig(), retryMode: 'adaptive', maxAttempts: 8 });
    try {
      const calls = await Promise.allSettled(
        Array.from({ length: 52 }, () => ec2.send(new DescribeInstancesCommand({}))),
      );

      expect(calls.filter((c) => c.status === 'rejected')).toEqual([]);
      const answers = aws.requestLog.filter({ service: 'ec2', operation: 'DescribeInstances' });
      expect(answers.filter((a) => a.errorCode === 'RequestLimitExceeded').length).toBeGreaterThan(0);
      expect(answers.filter((a) => a.status === 200)).toHaveLength(52);
    } finally {
      ec2.destroy();
      await aws.close();
    }
  });
});

const cli = findAwsCli();
describeWithOracle(
  'EC2 rate limits, held to the AWS CLI',
  cli ? undefined : 'no AWS CLI (apt-get install awscli)',
  () => {
    it(
      'should be a throttling error the CLI retries (standard mode), and reports when out of attempts',
      { timeout: 60_000 },
      () =>
        withWorld(async (world) => {
          if (!cli) return;
          const ec2 = oneShot(world);
          await burst(50, () => ec2.send(new DescribeInstancesCommand({})));
          ec2.destroy();

          const once = await runCli(cli, world.aws.endpoint, ['ec2', 'describe-instances'], 'us-east-1', {
            AWS_RETRY_MODE: 'standard',
            AWS_MAX_ATTEMPTS: '1',
          });
          expect(once.code).not.toBe(0);
          expect(once.stderr).toContain(
            'An error occurred (RequestLimitExceeded) when calling the DescribeInstances operation',
          );

          // The CLI retries after its backoff; meanwhile a second passes on the emulator's clock.
          const throttledBefore = world.aws.rateLimits?.throttled.length ?? 0;
          const tick = setInterval(() => {
            if ((world.aws.rateLimits?.throttled.length ?? 0) > throttledBefore) world.clock.advance(1_000);
          }, 20);
          const retried = await runCli(cli, world.aws.endpoint, ['ec2', 'describe-instances'], 'us-east-1', {
            AWS_RETRY_MODE: 'standard',
            AWS_MAX_ATTEMPTS: '5',
          }).finally(() => clearInterval(tick));

          expect(retried.code).toBe(0);
          const cliCalls = world.aws.requestLog
            .filter({ service: 'ec2', operation: 'DescribeInstances' })
            .slice(-2)
            .map((e) => e.errorCode ?? e.status);
          expect(cliCalls).toEqual(['RequestLimitExceeded', 200]);
        }),
    );
  },
);
