// What the Lambda host and a runtime worker thread say to each other.

/** The Lambda context the runtime hands a handler, less its methods (the worker adds them). */
export interface InvocationContextData {
  readonly functionName: string;
  readonly functionVersion: string;
  readonly invokedFunctionArn: string;
  readonly memoryLimitInMB: string;
  readonly awsRequestId: string;
  readonly logGroupName: string;
  readonly logStreamName: string;
  /** Epoch ms (virtual) at which the invocation times out. */
  readonly deadline: number;
}

/** Starts a new execution environment in the worker: a fresh instance of the bundle, with its own environment variables. */
export interface LoadRequest {
  readonly type: 'load';
  /** One Float64: the world's clock, written by the world whenever it moves. */
  readonly clock: SharedArrayBuffer;
  /** file: URL of the bundle (the asset's index.mjs). */
  readonly bundle: string;
  /** Tells this instance from earlier ones of the same bundle (module instances are cached by URL). */
  readonly instance: string;
  /** The exported handler's name (`index.handler` → `handler`). */
  readonly handlerExport: string;
  readonly environment: Readonly<Record<string, string>>;
  /**
   * Virtual milliseconds each HTTP request to an endpoint (`host:port`) takes before it reaches
   * it: the network and the server's work, which the emulators answer in no virtual time.
   */
  readonly latency?: Readonly<Record<string, number>>;
}

export interface WorkerData {
  /** Where bare imports the bundle leaves external (`@aws-sdk/*`, provided by the Lambda runtime) resolve from. */
  readonly runtimeModulesFrom: string;
  /** V8's compile cache for the runtime's modules (the SDK): later workers start faster. */
  readonly compileCacheDir?: string;
}

export type HostMessage =
  | LoadRequest
  | {
      readonly type: 'invoke';
      readonly id: string;
      readonly event: unknown;
      readonly context: InvocationContextData;
      /** A planned crash (chaos): the runtime dies once this many HTTP requests have left (see worker.ts). */
      readonly crashAfterRequests?: number;
    }
  /** The clock reached the time the worker said it waits for. */
  | { readonly type: 'wake' };

export interface FunctionErrorPayload {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly trace: readonly string[];
}

export type WorkerMessage =
  | { readonly type: 'loaded'; readonly instance: string }
  /** The bundle failed to load (Lambda's init error). */
  | {
      readonly type: 'init-error';
      readonly instance: string;
      readonly error: FunctionErrorPayload;
      readonly logs: readonly string[];
    }
  /** The invocation waits for nothing but time: `at` is the earliest timer (none: it waits for nothing at all). */
  | { readonly type: 'idle'; readonly at?: number }
  /** The planned crash happened: the runtime is dead, and the invocation has no answer. */
  | { readonly type: 'crashed'; readonly id: string; readonly requestsSent: number; readonly logs: readonly string[] }
  | {
      readonly type: 'done';
      readonly id: string;
      readonly result?: unknown;
      readonly error?: FunctionErrorPayload;
      readonly logs: readonly string[];
    };
