import type { IncomingHttpHeaders } from 'node:http';
import type { AwsError } from '../errors.js';
import type { IamAuthorizer } from '../iam/authorizer.js';
import type { Faults } from '../faults.js';
import type { QueryValue } from '../protocol/query-input.js';
import type { XmlInput, XmlRaw } from '../protocol/xml.js';
import type { AwsState } from '../state/index.js';
import type { EmulatorCredential } from '../sigv4.js';
import type { ServiceName } from './names.js';

/** One HTTP request as the router hands it to a protocol. */
export interface IncomingRequest {
  readonly method: string;
  /** Decoded path, without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface HttpReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What a handler may know about the call beyond its input. */
export interface RequestContext {
  readonly state: AwsState;
  readonly faults: Faults;
  readonly requestId: string;
  readonly request: IncomingRequest;
  /** From the SigV4 credential scope (Authorization header or presigned query); never verified for ordinary calls. */
  readonly accessKeyId?: string;
  readonly signingRegion?: string;
  readonly credentials: readonly EmulatorCredential[];
  /** The account's roles and policies (the IAM API reads and changes them), when the emulator has them. */
  readonly iam?: IamAuthorizer;
}

/** EC2: answers are XML built by the handler, wrapped in `<{Action}Response>`. */
export type Ec2Operation = (params: Readonly<Record<string, QueryValue>>, ctx: RequestContext) => readonly XmlInput[];

/** A value an awsquery handler returns; lists render as `<member>` elements (or JSON arrays). */
/**
 * A result member rendered once and reused while it does not change (an Auto Scaling group's
 * instance): `value` is what it says, `xml` that rendered as a list `member` of the XML answer.
 */
export class RenderedMember {
  constructor(
    readonly value: QueryResultValue,
    readonly xml: XmlRaw,
  ) {}
}

/**
 * A list the XML answer writes flattened, each item an element named after the list
 * (`<Attribute>…</Attribute><Attribute>…</Attribute>`), as SQS does, instead of `<member>`s.
 */
export class FlattenedList {
  constructor(readonly items: readonly QueryResultValue[]) {}
}

export type QueryResultValue =
  | string
  | FlattenedList
  | number
  | boolean
  | Date
  | undefined
  | RenderedMember
  | readonly QueryResultValue[]
  | { readonly [key: string]: QueryResultValue };
/** awsquery: the `<{Action}Result>` members, or null for operations without an output shape. */
export type AwsQueryOperation = (
  params: Readonly<Record<string, QueryValue>>,
  ctx: RequestContext,
) => Readonly<Record<string, QueryResultValue>> | null | Promise<Readonly<Record<string, QueryResultValue>> | null>;

/** awsJson: the parsed body in, the JSON answer out (timestamps as epoch seconds). */
export type JsonOperation = (input: unknown, ctx: RequestContext) => unknown;

/** A restJson answer: `body` is serialized to JSON; `headers` add to the content type and request id. */
export interface RestAnswer {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export interface RestRoute {
  readonly method: string;
  readonly pattern: RegExp;
  readonly operation: string;
  /** `params` are the pattern's decoded capture groups. */
  readonly handle: (params: readonly string[], ctx: RequestContext) => RestAnswer | Promise<RestAnswer>;
}

interface ServiceBase {
  readonly name: ServiceName;
  /** The error a throttled request of this service gets. */
  readonly throttlingError: () => AwsError;
}

export interface Ec2QueryService extends ServiceBase {
  readonly protocol: 'ec2';
  readonly xmlns: string;
  readonly operations: Readonly<Record<string, Ec2Operation>>;
}

export interface AwsQueryService extends ServiceBase {
  readonly protocol: 'query';
  readonly xmlns: string;
  readonly operations: Readonly<Record<string, AwsQueryOperation>>;
}

export interface JsonService extends ServiceBase {
  readonly protocol: 'json';
  readonly jsonVersion: '1.0' | '1.1';
  readonly targetPrefix: string;
  readonly operations: Readonly<Record<string, JsonOperation>>;
  /**
   * A service that moved from the query protocol (SQS) answers errors with their old code too, in
   * `x-amzn-query-error: <code>;<Sender|Receiver>`, which clients read first ("awsQueryCompatible").
   */
  readonly queryErrorCodes?: Readonly<Record<string, string>>;
}

export interface RestJsonService extends ServiceBase {
  readonly protocol: 'rest-json';
  readonly routes: readonly RestRoute[];
}

export type ServiceModule = Ec2QueryService | AwsQueryService | JsonService | RestJsonService;

/** A request bound to its service and operation, ready to run or to be answered with an error. */
export interface BoundCall {
  readonly service: ServiceModule;
  readonly operation: string;
  readonly params: unknown;
  /** Runs the handler; throws AwsError for answers in the error shape. */
  invoke(ctx: RequestContext): Promise<HttpReply>;
  renderError(error: AwsError, requestId: string): HttpReply;
}
