// Step Functions as the deployed drain workflow meets it: every execution StartExecution creates
// runs the template's definition in the ASL interpreter (src/sfn) on the world's clock, as
// the state machine's role. Its tasks reach the rest of the world the way the service's
// integrations do: `lambda:invoke` invokes the bundled function (Lambda's API errors named
// `Lambda.<Exception>`), `aws-sdk:<service>:<action>` and `events:putEvents` are API calls to the
// emulator signed with the role's credentials (so IAM and faults apply to them).
import * as autoScalingApi from '@aws-sdk/client-auto-scaling';
import * as ec2Api from '@aws-sdk/client-ec2';
import { EventBridgeClient, PutEventsCommand, type PutEventsCommandInput } from '@aws-sdk/client-eventbridge';
import * as sfnApi from '@aws-sdk/client-sfn';
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { AwsError } from '../aws/errors.js';
import type { AwsEmulator } from '../aws/index.js';
import type { ExecutionRecord } from '../aws/state/step-functions.js';
import type { StateMachineSpec } from '../deployment/template.js';
import {
  startExecution,
  StatesError,
  type Execution,
  type ExecutionResult,
  type PutEventsResult,
  type TaskContext,
} from '../sfn/index.js';
import type { LambdaService } from './lambda-service.js';

export interface RoleCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface StepFunctionsDeps {
  readonly clock: VirtualClock;
  readonly aws: AwsEmulator;
  readonly lambda: LambdaService;
  readonly stateMachines: readonly StateMachineSpec[];
  /** The credentials the service uses for a state machine's role. */
  readonly credentialsFor: (roleArn: string, sessionName: string) => RoleCredentials;
  /**
   * Whether the role may invoke the function (lambda:InvokeFunction on its ARN): Step Functions
   * invokes Lambda as the role. Undefined: allowed. A string: the denial's message.
   */
  readonly authorizeInvoke?: (roleArn: string, functionArn: string) => string | undefined;
}

/** One execution: the emulator's record (what DescribeExecution answers) and the interpreter's run. */
export interface RunningExecution {
  readonly record: ExecutionRecord;
  readonly machine: StateMachineSpec;
  readonly execution: Execution;
  result?: ExecutionResult;
}

/** The SDK client classes the `aws-sdk:<service>` integrations of our definitions use, and how Step Functions prefixes their errors. */
const SDK_SERVICES = {
  autoscaling: {
    api: autoScalingApi as unknown as Record<string, unknown>,
    client: autoScalingApi.AutoScalingClient,
    errorPrefix: 'AutoScaling',
    camelCaseMembers: false,
  },
  ec2: {
    api: ec2Api as unknown as Record<string, unknown>,
    client: ec2Api.EC2Client,
    errorPrefix: 'Ec2',
    camelCaseMembers: false,
  },
  // Step Functions' own API names its members in camelCase (stateMachineArn); its aws-sdk integration,
  // like every one, takes and gives them in PascalCase (StateMachineArn).
  sfn: {
    api: sfnApi as unknown as Record<string, unknown>,
    client: sfnApi.SFNClient,
    errorPrefix: 'Sfn',
    camelCaseMembers: true,
  },
} as const;

/** The keys of a plain object (and of the plain objects within it) with their first letter changed. */
function recase(value: unknown, change: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => recase(item, change));
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [change(key), recase(item, change)]));
}
const lowerFirst = (key: string): string => key.charAt(0).toLowerCase() + key.slice(1);
const upperFirst = (key: string): string => key.charAt(0).toUpperCase() + key.slice(1);
type SdkService = keyof typeof SDK_SERVICES;
const isSdkService = (name: string): name is SdkService => Object.hasOwn(SDK_SERVICES, name);

const pascal = (action: string): string => action.charAt(0).toUpperCase() + action.slice(1);

/** The error a task gets from an API error: `<Prefix>.<Exception>`, with the message as cause. */
function apiError(prefix: string, error: unknown): StatesError {
  if (error instanceof Error) return new StatesError(`${prefix}.${error.name}`, error.message);
  return new StatesError(`${prefix}.${prefix}Exception`, String(error));
}

type CommandClass = new (input: unknown) => object;
type SendingClient = { send(command: object): Promise<Record<string, unknown>>; destroy(): void };

export class StepFunctionsService {
  readonly executions = new Map<string, RunningExecution>();

  constructor(private readonly deps: StepFunctionsDeps) {
    for (const machine of deps.stateMachines)
      deps.aws.state.seedStateMachine({ name: machine.name, type: machine.type });
    deps.aws.state.stepFunctions.onStart = (record) => this.start(record);
  }

  /** Executions still running. */
  get running(): number {
    return [...this.executions.values()].filter((e) => e.execution.status === 'RUNNING').length;
  }

  /** Whether every running execution waits for the clock (or for work the Lambda service accounts for). */
  get waiting(): boolean {
    return [...this.executions.values()].every((e) => e.execution.waiting);
  }

  /** Resolves when every execution waits (see `waiting`). */
  async idle(): Promise<void> {
    await Promise.all([...this.executions.values()].map((e) => e.execution.idle()));
  }

  private start(record: ExecutionRecord): void {
    const machine = this.deps.stateMachines.find((m) => m.arn === record.stateMachineArn);
    if (!machine) return;
    const session = `${record.name}`.slice(0, 64);
    const credentials = this.deps.credentialsFor(machine.roleArn, session);
    const execution = startExecution({
      definition: machine.definition,
      input: JSON.parse(record.input) as unknown,
      clock: this.deps.clock,
      stateMachineArn: machine.arn,
      name: record.name,
      roleArn: machine.roleArn,
      tasks: {
        lambdaInvoke: (args, ctx) => this.invokeFunction(machine, args.FunctionName, args.Payload, ctx),
        awsSdk: (call) => this.callApi(credentials, call.service, call.action, call.parameters),
        putEvents: (args) => this.putEvents(credentials, args),
      },
    });
    const running: RunningExecution = { record, machine, execution };
    this.executions.set(record.arn, running);
    this.deps.aws.state.stepFunctions.attachHistory(record.arn, () => execution.history);
    void execution.result().then((result) => {
      running.result = result;
      this.deps.aws.state.stepFunctions.finish(record.arn, {
        status: result.status,
        at: result.stopDate,
        ...(result.output !== undefined ? { output: JSON.stringify(result.output) } : {}),
        ...(result.error !== undefined ? { error: result.error } : {}),
        ...(result.cause !== undefined ? { cause: result.cause } : {}),
      });
    });
  }

  /** The optimized `lambda:invoke` integration: the function's payload, or its error under the function's error type. */
  private async invokeFunction(
    machine: StateMachineSpec,
    functionName: string,
    payload: unknown,
    ctx: TaskContext,
  ): Promise<unknown> {
    const { lambda } = this.deps;
    const host = lambda.host(functionName);
    const functionArn = host?.fn.arn ?? functionName;
    const denied = this.deps.authorizeInvoke?.(machine.roleArn, functionArn);
    if (denied !== undefined) throw new StatesError('Lambda.AWSLambdaException', denied);
    // A scenario fault on Lambda's Invoke API hits the service's call as it would the SDK's.
    const injected = lambda.injectedInvokeError();
    if (injected) throw new StatesError(`Lambda.${injected.code}`, injected.message);
    let result;
    try {
      result = await ctx.elsewhere(lambda.invoke(functionName, payload ?? {}));
    } catch (error) {
      if (error instanceof AwsError) throw new StatesError(`Lambda.${error.code}`, error.message);
      throw error;
    }
    if (result.ok) return result.payload;
    const { errorType, errorMessage, trace } = result.error;
    // A runtime that died or timed out raised nothing the task could name: Step Functions says Lambda.Unknown.
    const name = result.kind === 'crash' || result.kind === 'timeout' ? 'Lambda.Unknown' : errorType;
    throw new StatesError(name, JSON.stringify({ errorType, errorMessage, trace }));
  }

  private client<S extends SdkService>(service: S, credentials: RoleCredentials): SendingClient {
    const { aws } = this.deps;
    // The service's own calls are not retried by an SDK: the definition's Retry decides.
    const Client = SDK_SERVICES[service].client;
    return new Client({ endpoint: aws.endpoint, region: aws.region, credentials, maxAttempts: 1 });
  }

  private async callApi(
    credentials: RoleCredentials,
    service: string,
    action: string,
    parameters: unknown,
  ): Promise<unknown> {
    if (!isSdkService(service))
      throw new StatesError('States.Runtime', `the sandbox does not emulate the aws-sdk:${service} integration`);
    const entry = SDK_SERVICES[service];
    const Command = entry.api[`${pascal(action)}Command`];
    if (typeof Command !== 'function')
      throw new StatesError('States.Runtime', `aws-sdk:${service}:${action} is not an action of ${service}`);
    const client = this.client(service, credentials);
    const input = entry.camelCaseMembers ? recase(parameters ?? {}, lowerFirst) : (parameters ?? {});
    try {
      const { $metadata: _metadata, ...output } = await client.send(new (Command as CommandClass)(input));
      return entry.camelCaseMembers ? recase(output, upperFirst) : output;
    } catch (error) {
      throw apiError(entry.errorPrefix, error);
    } finally {
      client.destroy();
    }
  }

  private async putEvents(credentials: RoleCredentials, args: unknown): Promise<PutEventsResult> {
    const client = new EventBridgeClient({
      endpoint: this.deps.aws.endpoint,
      region: this.deps.aws.region,
      credentials,
      maxAttempts: 1,
    });
    try {
      const output = await client.send(new PutEventsCommand(eventsOfTask(args)));
      return { Entries: output.Entries ?? [], FailedEntryCount: output.FailedEntryCount ?? 0 };
    } catch (error) {
      throw apiError('EventBridge', error);
    } finally {
      client.destroy();
    }
  }
}

/**
 * The optimized `events:putEvents` integration takes each entry's Detail as JSON and sends it as the
 * string the API wants (the aws-sdk integration would not).
 */
function eventsOfTask(args: unknown): PutEventsCommandInput {
  const input = (typeof args === 'object' && args !== null ? args : {}) as { Entries?: unknown };
  const entries = Array.isArray(input.Entries) ? input.Entries : [];
  return {
    Entries: entries.map((entry: unknown) => {
      const fields = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
      const detail = fields['Detail'];
      return {
        ...fields,
        Detail: typeof detail === 'string' || detail === undefined ? detail : JSON.stringify(detail),
      };
    }),
  };
}
