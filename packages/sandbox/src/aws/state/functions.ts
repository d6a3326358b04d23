import { partitionOf } from '../partitions.js';
/** What an emulated function is given besides its payload: the parts of the Lambda context it may read. */
export interface InvocationContext {
  readonly functionName: string;
  readonly invokedFunctionArn: string;
  readonly awsRequestId: string;
}

/** The function's code: the payload in (parsed JSON), its result out (serialized to JSON). */
export type FunctionHandler = (payload: unknown, context: InvocationContext) => Promise<unknown>;

export interface FunctionRecord {
  readonly name: string;
  readonly arn: string;
  readonly handler: FunctionHandler;
  /**
   * An asynchronous invocation (`Event`): queued, retried per the function's async configuration.
   * Without it the handler runs in the background once.
   */
  readonly enqueue?: (payload: unknown, context: InvocationContext) => void;
  readonly configuration: FunctionConfiguration;
  /** When it was last deployed (LastModified). */
  readonly lastModified: number;
}

/** What GetFunctionConfiguration says of a function beyond its name and ARN (the template's properties). */
export interface FunctionConfiguration {
  readonly runtime?: string;
  readonly role?: string;
  readonly handler?: string;
  readonly description?: string;
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
  readonly environment?: Readonly<Record<string, string>>;
  /** Its subnets and security groups (the VPC's id is not in a template's function: left out). */
  readonly vpc?: {
    readonly subnetIds: readonly string[];
    readonly securityGroupIds: readonly string[];
    readonly vpcId?: string;
  };
  /** LoggingConfig.LogGroup: `/aws/lambda/<name>` unless the function names its own. */
  readonly logGroup?: string;
  /** Its reserved concurrency (GetFunctionConcurrency); none: it shares the account's unreserved pool. */
  readonly reservedConcurrency?: number;
  readonly architectures?: readonly string[];
}

/** An event source mapping, as ListEventSourceMappings describes it. */
export interface EventSourceMappingRecord {
  readonly uuid: string;
  readonly eventSourceArn: string;
  readonly functionArn: string;
  readonly batchSize: number;
  readonly batchingWindowSeconds: number;
  readonly functionResponseTypes: readonly string[];
  readonly maximumConcurrency?: number;
  /** Lambda's words: Enabled, Disabled (and Creating, Updating… while it changes). */
  state: 'Enabled' | 'Disabled';
  readonly lastModified: number;
}

export interface InvocationRecord {
  readonly functionName: string;
  readonly type: 'RequestResponse' | 'Event' | 'DryRun';
  readonly payload: string;
  /** `errorType: errorMessage` when the function threw. */
  error?: string;
}

/**
 * Lambda functions whose code runs in this process: the sandbox registers the reconciler's own
 * functions so `aws lambda invoke` and the CLI's `invoke` reach them through the real wire protocol.
 */

export class FunctionStore {
  private readonly byName = new Map<string, FunctionRecord>();
  readonly invocations: InvocationRecord[] = [];
  readonly eventSourceMappings: EventSourceMappingRecord[] = [];
  /**
   * The account's concurrent executions quota in the region (GetAccountSettings): 1,000 by default,
   * 10 in a new account until it grows or is raised.
   */
  concurrencyLimit = 1000;

  /** The quota less every function's reservation: what functions without one share. */
  unreservedConcurrency(): number {
    let reserved = 0;
    for (const fn of this.byName.values()) reserved += fn.configuration.reservedConcurrency ?? 0;
    return this.concurrencyLimit - reserved;
  }

  /** Every registered function. */
  all(): readonly FunctionRecord[] {
    return [...this.byName.values()];
  }

  constructor(
    private readonly region: string,
    private readonly accountId: string,
    private readonly now: () => number = () => 0,
  ) {}

  register(
    name: string,
    handler: FunctionHandler,
    enqueue?: FunctionRecord['enqueue'],
    configuration: FunctionConfiguration = {},
  ): FunctionRecord {
    const record: FunctionRecord = {
      name,
      arn: `arn:${partitionOf(this.region)}:lambda:${this.region}:${this.accountId}:function:${name}`,
      handler,
      ...(enqueue ? { enqueue } : {}),
      configuration,
      lastModified: this.now(),
    };
    this.byName.set(name, record);
    return record;
  }

  /** By name, full ARN or partial ARN (`<account>:function:<name>`), with an optional `:$LATEST` qualifier. */
  find(nameOrArn: string): FunctionRecord | undefined {
    const match = /^(?:arn:aws[a-z-]*:lambda:[a-z0-9-]+:)?(?:\d{12}:function:)?([A-Za-z0-9_-]+)(?::\$LATEST)?$/.exec(
      nameOrArn,
    );
    return match?.[1] === undefined ? undefined : this.byName.get(match[1]);
  }

  /** The ARN Lambda names in its NotFound message for a function that does not exist. */
  arnOf(nameOrArn: string): string {
    return nameOrArn.startsWith('arn:')
      ? nameOrArn
      : `arn:${partitionOf(this.region)}:lambda:${this.region}:${this.accountId}:function:${nameOrArn}`;
  }
}
