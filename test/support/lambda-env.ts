// What the CDK app gives each function, pointed at the sandbox: the handler tests (source and
// bundled) set it in process.env before importing the handlers, which read it at cold start.
import type { Context, SQSEvent } from 'aws-lambda';
import type { Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';

/** Sets the functions' environment for the sandbox (AWS endpoint and credentials, cluster, drain state machine). */
export function setFunctionEnvironment(sandbox: Sandbox): void {
  const machine = sandbox.aws.state.seedStateMachine({ name: 'drain' });
  const { credentials } = sandbox.aws.clientConfig();
  Object.assign(process.env, {
    AWS_REGION: sandbox.scenario.cluster.region,
    AWS_ENDPOINT_URL: sandbox.aws.endpoint,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    CLUSTER_NAME: sandbox.scenario.cluster.name,
    RECONCILER_SETTINGS: JSON.stringify({ heartbeatGrace: '2m' }),
    DRAIN_STATE_MACHINE_ARN: machine.arn,
    // The deployed output bus (its name is generated unless the stack names it).
    OUTPUT_EVENT_BUS_NAME: sandbox.stack.deployment.eventBuses[0]?.name ?? 'ec2-node-reconciler',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  });
}

/** A Lambda context for one invocation of the named function in the sandbox's account, with `remainingMs` left. */
export function lambdaContext(sandbox: Sandbox, name: string, remainingMs = 60_000): Context {
  const { region, accountId } = sandbox.scenario.cluster;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${accountId}:function:${name}`,
    memoryLimitInMB: '512',
    awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: '2026/11/29/[$LATEST]abcdef',
    getRemainingTimeInMillis: () => remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** One SQS record carrying `body` (JSON-encoded unless already a string), as the event source mapping delivers it. */
export function sqsRecord(messageId: string, body: unknown): SQSEvent['Records'][number] {
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '1795953600000',
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: '1795953600000',
    },
    messageAttributes: {},
    md5OfBody: 'e4e68fb7bd0e697a0ae8f1bb342846b3',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:111122223333:ec2-node-reconciler-events',
    awsRegion: 'us-east-1',
  };
}
