// Lambda as the deployed functions meet it: each function of the template runs its bundled asset
// (src/lambda) with the template's environment, timeout, memory and reserved concurrency,
// under its role's credentials; synchronous invocations return the function's answer; asynchronous
// ones (the Scheduler's) are queued and retried after a function error as the function's async
// configuration says (1 min, then 2 min), and after throttling until the event is too old.
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { AwsError } from '../aws/errors.js';
import { stableHex } from '../aws/ids.js';
import type { AwsEmulator } from '../aws/index.js';
import type { FunctionSpec } from '../deployment/template.js';
import type { Activity } from '../lambda/activity.js';
import { FunctionHost, FunctionThrottled, type InvocationResult } from '../lambda/function-host.js';
import { assetDirOf, type DeployedStack } from './deploy.js';

/** Lambda's delays before the retries of a failed asynchronous invocation. */
const ASYNC_RETRY_DELAYS_MS = [60_000, 120_000] as const;
/** Throttled asynchronous events are retried with backoff from 1 s up to 5 min (the docs' bounds). */
const THROTTLE_RETRY_MS = { first: 1_000, max: 300_000 } as const;

export interface AsyncInvocation {
  readonly functionName: string;
  readonly payload: unknown;
  readonly queuedAt: number;
  /** Attempts made (the first run counts). */
  attempts: number;
  /** Retries after throttling, which do not count as attempts. */
  throttles: number;
  readonly results: InvocationResult[];
  status: 'queued' | 'succeeded' | 'failed' | 'expired';
}

export interface LambdaServiceDeps {
  readonly stack: DeployedStack;
  readonly clock: VirtualClock;
  readonly clockBuffer: SharedArrayBuffer;
  readonly activity: Activity;
  readonly aws: AwsEmulator;
  /** Variables laid over every function's template environment (the scenario's settings). */
  readonly environment: Readonly<Record<string, string>>;
  /** Virtual milliseconds each request of a function to an endpoint (`host:port`) takes; none: no time at all. */
  readonly latency?: Readonly<Record<string, number>>;
  /** The credentials a function's role session gets (what Lambda puts in its environment). */
  readonly credentialsFor: (fn: FunctionSpec) => {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  };
  /**
   * Whether Lambda may write an invocation's log lines to `stream` of the function's log group, as
   * the function's role (CloudWatch Logs CreateLogStream for a new stream, PutLogEvents). Refused,
   * they are lost. Undefined: always written.
   */
  readonly mayDeliverLogs?: (fn: FunctionSpec, stream: string) => boolean;
}

/** Whether an invocation's outcome is a function error (the invocation ran and failed). */
export const failed = (result: InvocationResult): boolean => !result.ok;

export class LambdaService {
  readonly hosts = new Map<string, FunctionHost>();
  readonly asyncInvocations: AsyncInvocation[] = [];
  private pendingAsync = 0;

  constructor(private readonly deps: LambdaServiceDeps) {
    const { stack, aws } = deps;
    for (const fn of stack.deployment.functions) {
      const credentials = deps.credentialsFor(fn);
      const host = new FunctionHost(
        {
          name: fn.name,
          arn: fn.arn,
          timeoutSeconds: fn.timeoutSeconds,
          memoryMb: fn.memoryMb,
          ...(fn.reservedConcurrency !== undefined ? { reservedConcurrency: fn.reservedConcurrency } : {}),
          handler: fn.handler ?? 'index.handler',
          assetPath: assetDirOf(stack, fn),
          environment: {
            ...fn.environment,
            ...deps.environment,
            AWS_REGION: stack.deployment.env.region,
            AWS_DEFAULT_REGION: stack.deployment.env.region,
            AWS_LAMBDA_FUNCTION_NAME: fn.name,
            AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
            AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
            AWS_LAMBDA_LOG_GROUP_NAME: fn.logGroupName,
            AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime ?? 'nodejs24.x'}`,
            LAMBDA_TASK_ROOT: '/var/task',
            _HANDLER: fn.handler ?? 'index.handler',
            TZ: ':UTC',
            AWS_ACCESS_KEY_ID: credentials.accessKeyId,
            AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
            ...(credentials.sessionToken ? { AWS_SESSION_TOKEN: credentials.sessionToken } : {}),
            // The one difference from AWS: every service answers at the emulator.
            AWS_ENDPOINT_URL: aws.endpoint,
          },
          ...(deps.latency ? { latency: deps.latency } : {}),
        },
        { clock: deps.clock, clockBuffer: deps.clockBuffer, activity: deps.activity },
      );
      this.hosts.set(fn.name, host);
      // `aws lambda invoke` and the CLI's `invoke` reach the function through the emulator's Lambda API.
      aws.state.functions.register(
        fn.name,
        async (payload) => {
          const result = await this.invoke(fn.name, payload);
          if (result.ok) return result.payload;
          throw Object.assign(new Error(result.error.errorMessage), { name: result.error.errorType });
        },
        (payload) => this.invokeAsync(fn.name, payload),
        {
          ...(fn.runtime !== undefined ? { runtime: fn.runtime } : {}),
          role: fn.roleArn,
          ...(fn.handler !== undefined ? { handler: fn.handler } : {}),
          ...(fn.description !== undefined ? { description: fn.description } : {}),
          timeoutSeconds: fn.timeoutSeconds,
          memoryMb: fn.memoryMb,
          environment: { ...fn.environment, ...deps.environment },
          ...(fn.vpc !== undefined ? { vpc: fn.vpc } : {}),
          logGroup: fn.logGroupName,
          ...(fn.architectures !== undefined ? { architectures: fn.architectures } : {}),
          ...(fn.reservedConcurrency !== undefined ? { reservedConcurrency: fn.reservedConcurrency } : {}),
        },
      );
    }
  }

  host(nameOrArn: string): FunctionHost | undefined {
    const name = /:function:([^:]+)(?::\$LATEST)?$/.exec(nameOrArn)?.[1] ?? nameOrArn;
    return this.hosts.get(name);
  }

  /**
   * A scenario fault on Lambda's Invoke API, as the calling service meets it (Step Functions, the
   * Scheduler, the event source mapping): the error Lambda answers with, or undefined to go on.
   */
  injectedInvokeError(): AwsError | undefined {
    const fault = this.deps.aws.faults.decide('lambda', 'Invoke');
    if (fault === undefined) return undefined;
    if (fault.kind === 'throttle') return new AwsError('TooManyRequestsException', 'Rate Exceeded.', 429);
    // A service's own call has no connection of ours to drop: it meets a service error instead.
    if (fault.kind === 'reset' || fault.kind === 'lost')
      return new AwsError('ServiceException', 'the connection to Lambda was reset', 500);
    return new AwsError(fault.code === 'InternalError' ? 'ServiceException' : fault.code, fault.message, fault.status);
  }

  /** A synchronous invocation (RequestResponse). Throws AwsError TooManyRequestsException when throttled. */
  async invoke(nameOrArn: string, payload: unknown): Promise<InvocationResult> {
    const host = this.host(nameOrArn);
    if (!host) throw new AwsError('ResourceNotFoundException', `Function not found: ${nameOrArn}`, 404);
    try {
      return this.delivered(host, await host.invoke(payload));
    } catch (error) {
      if (error instanceof FunctionThrottled)
        throw new AwsError(
          'TooManyRequestsException',
          `Rate Exceeded. Reason: ReservedFunctionConcurrentInvocationLimitExceeded`,
          429,
        );
      throw error;
    }
  }

  /** An asynchronous invocation (Event): accepted now, run as soon as a slot is free, retried per the function's async configuration. */
  invokeAsync(nameOrArn: string, payload: unknown): AsyncInvocation {
    const host = this.host(nameOrArn);
    if (!host) throw new AwsError('ResourceNotFoundException', `Function not found: ${nameOrArn}`, 404);
    const invocation: AsyncInvocation = {
      functionName: host.fn.name,
      payload,
      queuedAt: this.deps.clock.now(),
      attempts: 0,
      throttles: 0,
      results: [],
      status: 'queued',
    };
    this.asyncInvocations.push(invocation);
    this.pendingAsync += 1;
    this.attempt(host, invocation);
    return invocation;
  }

  /** Asynchronous events not yet done (queued, running or waiting for a retry). */
  get asyncPending(): number {
    return this.pendingAsync;
  }

  async close(): Promise<void> {
    await Promise.all([...this.hosts.values()].map((host) => host.close()));
  }

  private attempt(host: FunctionHost, invocation: AsyncInvocation): void {
    const spec = this.spec(host.fn.name);
    const { clock, activity } = this.deps;
    const end = (status: AsyncInvocation['status']) => {
      invocation.status = status;
      this.pendingAsync -= 1;
    };
    if (clock.now() - invocation.queuedAt > spec.async.maximumEventAgeSeconds * 1000) {
      end('expired');
      return;
    }
    if (host.fn.reservedConcurrency !== undefined && host.concurrency >= host.fn.reservedConcurrency) {
      invocation.throttles += 1;
      const delay = Math.min(THROTTLE_RETRY_MS.max, THROTTLE_RETRY_MS.first * 2 ** (invocation.throttles - 1));
      clock.schedule(clock.now() + delay, () => this.attempt(host, invocation));
      return;
    }
    invocation.attempts += 1;
    // The queue's hand-off is work the clock must wait for until the invocation holds its own.
    activity.acquire();
    const run = host.invoke(invocation.payload);
    activity.release();
    void run.then(
      (result) => {
        invocation.results.push(this.delivered(host, result));
        if (result.ok) return end('succeeded');
        const retry = invocation.attempts - 1;
        const delay = ASYNC_RETRY_DELAYS_MS[retry];
        if (retry >= spec.async.maximumRetryAttempts || delay === undefined) return end('failed');
        clock.schedule(clock.now() + delay, () => this.attempt(host, invocation));
      },
      (error: unknown) => {
        // The host could not run it at all (its runtime failed to start): nothing is left to wait for.
        const message = error instanceof Error ? error.message : String(error);
        invocation.results.push({
          ok: false,
          kind: 'error',
          error: { errorType: 'Sandbox.HostError', errorMessage: message, trace: [] },
          logs: [],
          requestId: '',
        });
        end('failed');
      },
    );
  }

  /**
   * An invocation's log lines written to CloudWatch Logs as Lambda writes them (between START and
   * END lines, in the function's group, one stream per function and day), for `aws logs` and doctor.
   */
  private delivered(host: FunctionHost, result: InvocationResult): InvocationResult {
    if (result.logs.length === 0) return result;
    const spec = this.spec(host.fn.name);
    const { clock, aws } = this.deps;
    const day = new Date(clock.now()).toISOString().slice(0, 10).replaceAll('-', '/');
    const stream = `${day}/[$LATEST]${stableHex(`log-stream:${spec.name}`, 32)}`;
    if (this.deps.mayDeliverLogs?.(spec, stream) === false) return result;
    const id = result.requestId;
    aws.state.logs.append(
      spec.logGroupName,
      stream,
      [`START RequestId: ${id} Version: $LATEST`, ...result.logs, `END RequestId: ${id}`],
      clock.now(),
    );
    return result;
  }

  private spec(name: string): FunctionSpec {
    const spec = this.deps.stack.deployment.functions.find((fn) => fn.name === name);
    if (!spec) throw new Error(`no function ${name} in the deployment`);
    return spec;
  }
}
