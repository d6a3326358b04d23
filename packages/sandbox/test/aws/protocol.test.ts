// Wire shapes, byte for byte where clients depend on them: each protocol's error envelope,
// unknown operations and parameters, routing, and the query decoder under them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AwsError, RequestLog } from '../../src/aws/index.js';
import { decodeQueryParams } from '../../src/aws/protocol/query-input.js';
import { anInstance, instanceId, startWorld, type World } from './support/world.js';

/** A request signed for `service` as far as routing cares: only the credential scope is read. */
const auth = (service: string): Record<string, string> => ({
  authorization: `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261129/us-east-1/${service}/aws4_request, SignedHeaders=host;x-amz-date, Signature=00`,
});
const form = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.close();
});

const post = (headers: Record<string, string>, body: string, path = '/'): Promise<Response> =>
  fetch(`${world.aws.endpoint}${path}`, { method: 'POST', headers, body });

describe('EC2 query protocol', () => {
  it('should answer errors as <Response><Errors><Error> with RequestID', async () => {
    const response = await post(
      { ...auth('ec2'), ...form },
      'Action=DescribeInstances&Version=2016-11-15&InstanceId.1=i-zz',
    );

    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<Response><Errors><Error><Code>InvalidInstanceID.Malformed<\/Code><Message>Invalid id: "i-zz"<\/Message><\/Error><\/Errors><RequestID>[0-9a-f-]{36}<\/RequestID><\/Response>$/,
    );
  });

  it('should wrap results in <ActionResponse xmlns> with a requestId and escape values', async () => {
    world.aws.state.seedInstance(anInstance(1, { tags: { note: '<a & "b">' } }));

    const response = await post(
      { ...auth('ec2'), ...form },
      `Action=DescribeInstances&Version=2016-11-15&InstanceId.1=${instanceId(1)}`,
    );
    const body = await response.text();

    expect(response.headers.get('content-type')).toBe('text/xml;charset=UTF-8');
    expect(body).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<DescribeInstancesResponse xmlns="http:\/\/ec2.amazonaws.com\/doc\/2016-11-15\/"><requestId>[0-9a-f-]{36}<\/requestId><reservationSet><item>/,
    );
    expect(body).toContain('<item><key>note</key><value>&lt;a &amp; "b"&gt;</value></item>');
  });

  it.each([
    [
      'Action=RunInstances&Version=2016-11-15',
      'InvalidAction',
      'The action RunInstances is not valid for this web service.',
    ],
    [
      'Action=DescribeInstances&Version=2016-11-15&Colour=blue',
      'UnknownParameter',
      'The parameter Colour is not recognized',
    ],
    [
      'Action=DescribeInstances&Version=2016-11-15&MaxResults=five',
      'InvalidParameterValue',
      "Invalid value 'five' for MaxResults",
    ],
    [
      'Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=instance-id',
      'MissingParameter',
      'The request must contain the parameter Filter.1.Value',
    ],
    [
      'Action=DescribeInstances&Version=2016-11-15&InstanceId.1=a&InstanceId.1.x=b',
      'MalformedQueryString',
      'parameter is both a value and a structure: InstanceId.1.x',
    ],
  ])('should refuse %s with %s', async (body, code, message) => {
    const text = await (await post({ ...auth('ec2'), ...form }, body)).text();

    expect(text).toContain(`<Code>${code}</Code><Message>${message}</Message>`);
  });
});

describe('awsquery protocol', () => {
  it('should answer errors as <ErrorResponse> with Type, Code, Message and RequestId', async () => {
    const response = await post(
      { ...auth('autoscaling'), ...form },
      'Action=CompleteLifecycleAction&Version=2011-01-01&AutoScalingGroupName=g&LifecycleHookName=h&LifecycleActionResult=CONTINUE&InstanceId=i-0123456789abcdef0',
    );

    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<ErrorResponse xmlns="http:\/\/autoscaling.amazonaws.com\/doc\/2011-01-01\/"><Error><Type>Sender<\/Type><Code>ValidationError<\/Code><Message>No active Lifecycle Action found with instance ID i-0123456789abcdef0<\/Message><\/Error><RequestId>[0-9a-f-]{36}<\/RequestId><\/ErrorResponse>$/,
    );
  });

  it('should render results with member lists, an empty Result element for empty outputs, and none for void ones', async () => {
    world.aws.state.seedInstance(
      anInstance(1, { autoScaling: { group: 'g', lifecycleState: 'Terminating:Wait', hook: 'h' } }),
    );

    const describe = await (
      await post(
        { ...auth('autoscaling'), ...form },
        'Action=DescribeAutoScalingInstances&Version=2011-01-01&InstanceIds.member.1=' + instanceId(1),
      )
    ).text();
    const complete = await (
      await post(
        { ...auth('autoscaling'), ...form },
        `Action=CompleteLifecycleAction&Version=2011-01-01&AutoScalingGroupName=g&LifecycleHookName=h&LifecycleActionResult=CONTINUE&InstanceId=${instanceId(1)}`,
      )
    ).text();
    const health = await (
      await post(
        { ...auth('autoscaling'), ...form },
        `Action=SetInstanceHealth&Version=2011-01-01&InstanceId=${instanceId(1)}&HealthStatus=Healthy`,
      )
    ).text();

    expect(describe).toContain(
      `<DescribeAutoScalingInstancesResult><AutoScalingInstances><member><InstanceId>${instanceId(1)}</InstanceId>`,
    );
    expect(complete).toMatch(
      /<CompleteLifecycleActionResponse xmlns="[^"]+"><CompleteLifecycleActionResult\/><ResponseMetadata><RequestId>/,
    );
    expect(health).toMatch(/<SetInstanceHealthResponse xmlns="[^"]+"><ResponseMetadata><RequestId>/);
  });

  it('should refuse an unknown action', async () => {
    const text = await (await post({ ...auth('sts'), ...form }, 'Action=AssumeRole&Version=2011-06-15')).text();

    expect(text).toContain(
      '<Code>InvalidAction</Code><Message>Could not find operation AssumeRole for version 2011-06-15</Message>',
    );
  });
});

describe('JSON protocols', () => {
  const json = (version: string, target: string): Record<string, string> => ({
    'content-type': `application/x-amz-json-${version}`,
    'x-amz-target': target,
  });

  it('should answer awsJson errors with __type and message', async () => {
    const response = await post(
      { ...auth('states'), ...json('1.0', 'AWSStepFunctions.DescribeExecution') },
      JSON.stringify({ executionArn: 'arn:aws:states:us-east-1:111122223333:execution:m:x' }),
    );

    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/x-amz-json-1.0');
    expect(await response.json()).toEqual({
      __type: 'ExecutionDoesNotExist',
      message: "Execution Does Not Exist: 'arn:aws:states:us-east-1:111122223333:execution:m:x'",
    });
  });

  it.each([
    ['AWSEvents.PutRule', '{}', 'UnknownOperationException'],
    ['AWSEvents.PutEvents', '{"Entries": ', 'SerializationException'],
    ['AWSEvents.PutEvents', '{"Entries": []}', 'ValidationException'],
  ])('should refuse %s %s with %s', async (target, body, code) => {
    const response = await post({ ...auth('events'), ...json('1.1', target) }, body);

    expect(((await response.json()) as { __type: string }).__type).toBe(code);
  });

  it('should name restJson errors in x-amzn-ErrorType', async () => {
    const response = await fetch(`${world.aws.endpoint}/clusters/nope`, { headers: auth('eks') });

    expect(response.status).toBe(404);
    expect(response.headers.get('x-amzn-errortype')).toBe('ResourceNotFoundException');
    expect(await response.json()).toEqual({ message: 'No cluster found for name: nope.' });
  });
});

describe('routing', () => {
  it('should route unsigned requests by X-Amz-Target, path or Action', async () => {
    world.aws.state.seedCluster({ name: 'demo', endpoint: 'https://127.0.0.1:6443' });

    const cluster = await fetch(`${world.aws.endpoint}/clusters/demo`);
    const ec2 = await post(form, 'Action=DescribeInstances&Version=2016-11-15');
    const unknown = await post(form, 'Action=ListBuckets');

    expect(cluster.status).toBe(200);
    expect(ec2.status).toBe(200);
    expect(unknown.status).toBe(400);
    expect(world.aws.requestLog.entries.map((e) => `${e.service}:${e.operation}`)).toEqual([
      'eks:DescribeCluster',
      'ec2:DescribeInstances',
      'unknown:',
    ]);
  });
});

describe('decodeQueryParams', () => {
  it('should nest EC2 lists and structures in wire order', () => {
    const params = new URLSearchParams(
      'Action=X&Filter.2.Name=b&Filter.1.Name=a&Filter.1.Value.2=y&Filter.1.Value.1=x&Filter.2.Value.1=z&InstanceId.10=j&InstanceId.2=i',
    );

    expect(decodeQueryParams(params, { collapseMember: false })).toEqual({
      Filter: [
        { Name: 'a', Value: ['x', 'y'] },
        { Name: 'b', Value: ['z'] },
      ],
      InstanceId: ['i', 'j'],
    });
  });

  it('should drop the awsquery member level and keep an empty list marker', () => {
    const params = new URLSearchParams(
      'InstanceIds.member.2=b&InstanceIds.member.1=a&Empty=&Nested.Items.member.1.Key=k',
    );

    expect(decodeQueryParams(params, { collapseMember: true })).toEqual({
      InstanceIds: ['a', 'b'],
      Empty: '',
      Nested: { Items: [{ Key: 'k' }] },
    });
  });

  it('should refuse a parameter given twice', () => {
    expect(() => decodeQueryParams(new URLSearchParams('A=1&A=2'), { collapseMember: false })).toThrow(AwsError);
  });
});

describe('RequestLog', () => {
  it('should keep only the newest entries beyond its capacity', () => {
    const log = new RequestLog(2);

    for (let n = 0; n < 3; n++)
      log.add({ at: n, service: 'ec2', operation: 'DescribeInstances', params: {}, status: 200, durationMs: 1 });

    expect(log.entries.map((e) => e.seq)).toEqual([2, 3]);
  });
});
