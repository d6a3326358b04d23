import http from 'node:http';
import https from 'node:https';
import { createGunzip } from 'node:zlib';
import type * as z from 'zod';
import { PRODUCT_NAME } from '@ec2-node-reconciler/model/contract/product.js';
import { describeIssues } from '@ec2-node-reconciler/model/zod-issues.js';
import { Slots } from '../support/bounded.js';
import { ByteCollector, BytePool } from '../support/byte-pool.js';
import { StatusSchema, type KubeStatus } from './schemas.js';
import { textWithoutArrays } from './skim.js';

/**
 * Where the API server is and how to reach it. `requestOptions` is asked before every request, so a
 * rotating credential (an exec plugin's, a refreshed token) is always current.
 */
export interface KubeConnection {
  /** Base URL of the API server (`https://….eks.amazonaws.com`; may carry a path prefix behind a proxy). */
  readonly server: string;
  /** TLS (ca, cert, key, agent) and auth (headers) options for the next request. */
  requestOptions(): Promise<https.RequestOptions>;
  /** Told when the server answered 401, so the next request can bring a fresh credential. */
  unauthorized?(): void;
}

export type KubeMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface KubeRequest {
  readonly method: KubeMethod;
  /** `/api/v1/nodes/ip-10-0-1-1.ec2.internal`: path segments already encoded (see `kubePath`). */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly body?: unknown;
  /** For PATCH: `application/strategic-merge-patch+json`, `application/merge-patch+json` or `application/json-patch+json`. */
  readonly contentType?: string;
  /**
   * A 429 to this write is the resource's own answer, never retried here: an eviction a
   * PodDisruptionBudget forbids (sometimes with `Retry-After: 10`, eviction.go) is the drain's to wait on.
   */
  readonly throttleIsRefusal?: boolean;
}

export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';

/** A path from segments, each percent-encoded: `kubePath('api/v1', 'nodes', name)`. The prefix is taken as is. */
export function kubePath(prefix: string, ...segments: readonly string[]): string {
  return `/${prefix}${segments.map((s) => `/${encodeURIComponent(s)}`).join('')}`;
}

/** The API server answered with an error status; `status` is the HTTP code, `details` its meta/v1 Status body. */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';

  constructor(
    readonly status: number,
    readonly details: KubeStatus,
    request: Pick<KubeRequest, 'method' | 'path'>,
  ) {
    super(
      `${request.method} ${request.path}: HTTP ${status}${details.reason ? ` ${details.reason}` : ''}${details.message ? `: ${details.message}` : ''}`,
    );
  }
}

/** The API server could not be reached, did not answer in time, or answered something that is not the expected object. */
export class KubeTransportError extends Error {
  override readonly name = 'KubeTransportError';
  readonly transient: boolean;

  constructor(
    message: string,
    options?: ErrorOptions & {
      /** A network failure worth another attempt (reset, refused, timed out), not a refused certificate. */
      readonly transient?: boolean;
    },
  ) {
    super(message, options);
    this.transient = options?.transient ?? false;
  }
}

/** Socket errors that a retry can outlive: an API server restarting, a load balancer dropping idle connections. */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const isTransient = (error: Error): boolean =>
  error instanceof RequestTimeout || TRANSIENT_CODES.has((error as NodeJS.ErrnoException).code ?? '');

class RequestTimeout extends Error {}

export interface KubeClientOptions {
  /** Abandon an attempt whose answer has not fully arrived in this time (a deadline, not an idle timeout). @default 30000 */
  readonly timeoutMs?: number;
  /** Called once per call, before its first attempt (API call counting: calls, not attempts, like the AWS counts). */
  readonly onRequest?: (method: KubeMethod, path: string) => void;
  /**
   * Further attempts of a GET that was throttled (429: API Priority and Fairness), met a server
   * error (5xx: an API server restarting behind its load balancer) or a broken connection, as
   * client-go retries them; and of a write refused with 429 and a Retry-After header: API Priority
   * and Fairness refused it before it ran (an eviction's 429 is a PodDisruptionBudget's, the
   * caller's: KubeRequest.throttleIsRefusal). Other failed writes are never retried here: their
   * callers own what a refusal means. Every wait is the server's Retry-After (capped at
   * MAX_RETRY_WAIT_MS) when it gives one. @default 5
   */
  readonly retries?: number;
  /**
   * Requests in flight at once from this client, the others waiting their turn (an invocation's
   * share of the API server's API Priority and Fairness seats: docs/design.md §3, packages/model/src/contract/api-budgets.ts).
   * @default unlimited
   */
  readonly maxInFlight?: number;
  /** How to wait before a retry (a VirtualClock's sleep in the sandbox). @default real time */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * Milliseconds this invocation has left: an attempt never waits longer, and no retry starts that
   * could not finish in time, so a hung API server fails the call with a reason instead of
   * timing the whole function out. @default unlimited
   */
  readonly remainingMs?: () => number;
  /** Told the status and headers of every answer as it arrives (the server's Date, for its clock). */
  readonly onResponse?: (response: { readonly status: number; readonly headers: http.IncomingHttpHeaders }) => void;
}

/** The wait before a retry: the server's Retry-After when it gives one (capped), else a second per attempt. */
export const MAX_RETRY_WAIT_MS = 10_000;
export function retryDelayMs(retryAfter: string | undefined, attempt: number): number {
  const seconds = retryAfter === undefined ? Number.NaN : Number(retryAfter);
  return Math.min(Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : attempt * 1000, MAX_RETRY_WAIT_MS);
}

const isRetryableStatus = (status: number): boolean => status === 429 || (status >= 500 && status <= 504);

/**
 * A read may be sent again after any retryable answer; a write only after a 429 with Retry-After,
 * API Priority and Fairness refusing it before it ran (apiserver's priority-and-fairness filter).
 */
const mayRetry = (request: KubeRequest, answer: Answer): boolean =>
  request.method === 'GET'
    ? isRetryableStatus(answer.status)
    : answer.status === 429 &&
      request.throttleIsRefusal !== true &&
      answer.retryAfter !== undefined &&
      answer.retryAfter.trim() !== '';

type Answer = { status: number; text: string; retryAfter?: string };

const USER_AGENT = PRODUCT_NAME;

/**
 * The few Kubernetes REST calls the reconciler makes, as JSON over node:https, with every answer
 * validated by a zod schema of the fields we read. Hand-written instead of @kubernetes/client-node
 * because that client (its generated APIs and models, and the undici it ships) weighs ~1.9 MB in a
 * Lambda bundle, over the 1.5 MB budget; the CLI still loads kubeconfigs with client-node.
 */
export class KubeClient {
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly connection: Promise<KubeConnection>;
  /** Where answers are assembled, reused from one to the next (byte-pool.ts). */
  private readonly buffers = new BytePool();
  private readonly slots?: Slots;

  /**
   * @param connection the API server and credentials, or the promise of them: a cold Lambda asks
   * DescribeCluster for the endpoint while it already asks EC2 about the event's instance, and the
   * first Kubernetes call waits for it (failing with its error, if it failed).
   */
  constructor(
    connection: KubeConnection | Promise<KubeConnection>,
    private readonly options: KubeClientOptions = {},
  ) {
    this.connection = Promise.resolve(connection);
    // A run that never reaches Kubernetes (another cluster's instance) never awaits it: that is no crash.
    this.connection.catch(() => undefined);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 5;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    if (options.maxInFlight !== undefined) this.slots = new Slots(options.maxInFlight);
  }

  /**
   * Sends the request and returns the answer parsed by `schema`; throws KubeApiError for an error
   * status. `onContinue`: a list's continue token, as soon as the answer's head has arrived (before
   * its items), so the next page can be asked for while this one is still read.
   */
  async call<S extends z.ZodType>(request: KubeRequest, schema: S, options: CallOptions = {}): Promise<z.output<S>> {
    this.options.onRequest?.(request.method, request.path);
    const { status, text } = await this.sendWithRetries(request, options);
    if (status >= 400) {
      if (status === 401) (await this.connection).unauthorized?.();
      throw new KubeApiError(status, statusOf(text), request);
    }
    let json: unknown;
    try {
      // A success without a body (a proxy's 200 to a DELETE) carries nothing to read.
      json = text.trim() === '' ? null : JSON.parse(text);
    } catch {
      throw new KubeTransportError(
        `${request.method} ${request.path}: HTTP ${status} answer is not JSON: ${text.slice(0, 120)}`,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      // A page of 500 objects can fail 500 times over: the first few say enough.
      const issues = describeIssues(parsed.error);
      throw new KubeTransportError(
        `${request.method} ${request.path}: unexpected answer: ${issues.length > 500 ? `${issues.slice(0, 500)}…` : issues}`,
      );
    }
    return parsed.data;
  }

  private async sendWithRetries(request: KubeRequest, options: CallOptions): Promise<Answer> {
    const remaining = () => this.options.remainingMs?.() ?? Number.POSITIVE_INFINITY;
    // A retry is worth starting only if its wait leaves time for an answer.
    const canRetry = (attempt: number, waitMs: number) => attempt <= this.retries && waitMs < remaining();
    // Each attempt takes a slot while it is out, never while it waits to be retried.
    const attempt = () => {
      const left = remaining();
      if (left <= 0)
        return Promise.reject(
          new KubeTransportError(`${request.method} ${request.path}: no time left in this invocation`),
        );
      return this.send(request, Math.min(this.timeoutMs, left), options);
    };
    for (let n = 1; ; n++) {
      let answer: Answer;
      try {
        answer = await (this.slots ? this.slots.run(attempt) : attempt());
      } catch (error) {
        const wait = retryDelayMs(undefined, n);
        if (
          request.method !== 'GET' ||
          !(error instanceof KubeTransportError) ||
          !error.transient ||
          !canRetry(n, wait)
        )
          throw error;
        await this.sleep(wait);
        continue;
      }
      const wait = retryDelayMs(answer.retryAfter, n);
      if (!mayRetry(request, answer) || !canRetry(n, wait)) return answer;
      await this.sleep(wait);
    }
  }

  private async send(request: KubeRequest, timeoutMs: number, options: CallOptions): Promise<Answer> {
    const connection = await this.connection;
    const url = new URL(connection.server.replace(/\/+$/, '') + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const base = await connection.requestOptions();
    const body = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
    const headers: http.OutgoingHttpHeaders = {
      ...headerObject(base.headers),
      Accept: 'application/json',
      // The API server compresses answers over 128 KB (a page of 500 Nodes: 5 MB of JSON, ~150 KB gzipped).
      'Accept-Encoding': 'gzip',
      'User-Agent': USER_AGENT,
      ...(body ? { 'Content-Type': request.contentType ?? 'application/json', 'Content-Length': body.byteLength } : {}),
    };
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, { ...base, method: request.method, headers }, (res) => {
        this.options.onResponse?.({ status: res.statusCode ?? 0, headers: res.headers });
        const collected = new ByteCollector(this.buffers);
        const failed = (error: Error) => {
          collected.release();
          reject(
            new KubeTransportError(`${request.method} ${request.path}: ${error.message}`, {
              cause: error,
              transient: isTransient(error),
            }),
          );
        };
        res.on('error', failed);
        // Decompressed off the main thread (zlib works in libuv's pool) while the next chunks arrive,
        // in large chunks: with zlib's 16 KB default, handing over a 5 MB page's 300 chunks cost as
        // much CPU as the compression saved.
        const body: NodeJS.ReadableStream =
          res.headers['content-encoding'] === 'gzip'
            ? res.pipe(createGunzip({ chunkSize: GUNZIP_CHUNK })).on('error', failed)
            : res;
        const head = options.onContinue && res.statusCode === 200 ? new ListHead(options.onContinue) : undefined;
        body.on('data', (chunk: Buffer) => {
          collected.add(chunk);
          head?.add(chunk);
        });
        const retryAfter = res.headers['retry-after'];
        body.on('end', () => {
          const bytes = collected.bytes();
          const status = res.statusCode ?? 0;
          const text =
            options.emptyArrays && status === 200
              ? textWithoutArrays(bytes, options.emptyArrays)
              : bytes.toString('utf8');
          collected.release();
          resolve({ status, text, ...(retryAfter !== undefined ? { retryAfter } : {}) });
        });
      });
      const deadline = setTimeout(
        () => req.destroy(new RequestTimeout(`no answer within ${Math.round(timeoutMs)} ms`)),
        timeoutMs,
      );
      req.once('close', () => clearTimeout(deadline));
      req.on('error', (error) =>
        reject(
          new KubeTransportError(`${request.method} ${request.path}: ${error.message}`, {
            cause: error,
            transient: isTransient(error),
          }),
        ),
      );
      req.end(body);
    });
  }
}

export interface CallOptions {
  /** Told a list's continue token once, as soon as the answer's head (its metadata, before the items) has arrived. */
  readonly onContinue?: (token: string) => void;
  /** Members whose array values the schema never reads (a Node's `images`): emptied before decoding and parsing (skim.ts). */
  readonly emptyArrays?: readonly string[];
}

/**
 * Watches the first bytes of a list answer for its continue token. A list answer starts with its
 * metadata (`{"kind":…,"apiVersion":…,"metadata":{…,"continue":"…"},"items":[`): once `"items":`
 * has arrived, what came before it, closed, is the list's envelope. An answer laid out otherwise
 * gives no early token, and the caller asks for the next page once this one is read.
 */
const HEAD_LIMIT = 16_384;
const GUNZIP_CHUNK = 256 * 1024;

class ListHead {
  private text = '';
  private done = false;

  constructor(private readonly onContinue: (token: string) => void) {}

  add(chunk: Buffer): void {
    if (this.done) return;
    // The envelope is a few hundred bytes: past 16 KB, this is not the layout looked for.
    this.text += chunk.toString('latin1', 0, Math.min(chunk.length, HEAD_LIMIT - this.text.length));
    const at = this.text.indexOf(',"items":');
    if (at < 0) {
      if (this.text.length >= HEAD_LIMIT) this.done = true;
      return;
    }
    this.done = true;
    try {
      const envelope: unknown = JSON.parse(`${this.text.slice(0, at)}}`);
      const token = isRecord(envelope) && isRecord(envelope['metadata']) ? envelope['metadata']['continue'] : undefined;
      if (typeof token === 'string' && token !== '') this.onContinue(token);
    } catch {
      // not the layout looked for: no early token
    }
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Request options may carry headers as an object or as a raw [name, value, …] list. */
function headerObject(headers: https.RequestOptions['headers']): http.OutgoingHttpHeaders {
  if (headers === undefined) return {};
  if (!isRawHeaderList(headers)) return headers;
  const out: http.OutgoingHttpHeaders = {};
  for (let i = 0; i + 1 < headers.length; i += 2) out[String(headers[i])] = headers[i + 1];
  return out;
}

function isRawHeaderList(headers: NonNullable<https.RequestOptions['headers']>): headers is readonly string[] {
  return Array.isArray(headers);
}

/** The Status body of an error answer; a body that is not one (a proxy's HTML page) becomes its message. */
function statusOf(text: string): KubeStatus {
  try {
    const parsed = StatusSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON: fall through
  }
  return text.trim() ? { message: text.trim().slice(0, 200) } : {};
}

/** The HTTP status of a failed Kubernetes call, or undefined when no answer came back. */
export function httpStatus(error: unknown): number | undefined {
  return error instanceof KubeApiError ? error.status : undefined;
}

/** The server's own message for a failed call (the Status message), else the error's. */
export function statusMessage(error: unknown): string {
  if (error instanceof KubeApiError) return error.details.message ?? `HTTP ${error.status}`;
  return error instanceof Error ? error.message : String(error);
}
