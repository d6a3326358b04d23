import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { authorizeCall } from './authorization.js';
import type { Counters } from './counters.js';
import { AwsError, asAwsError } from './errors.js';
import type { Faults } from './faults.js';
import type { IamAuthorizer } from './iam/authorizer.js';
import type { Ec2RateLimiter } from './rate-limits.js';
import { IdSource } from './ids.js';
import type { RequestLog, RequestLogEntry } from './request-log.js';
import { route } from './router.js';
import { GLOBAL_SERVICES } from './services/names.js';
import type { EmulatorCredential } from './sigv4.js';
import type { AwsState } from './state/index.js';
import type { HttpReply, IncomingRequest, RequestContext } from './services/types.js';

export interface ServerDeps {
  /** The account as seen from a region: the emulator's own, or an empty one for any other signing region. */
  readonly stateFor: (region: string | undefined) => AwsState;
  readonly faults: Faults;
  readonly requestLog: RequestLog;
  readonly counters: Counters;
  /** Read at every request: credentials added later (role sessions) are known at once. */
  readonly credentials: readonly EmulatorCredential[];
  /** When given, every routed call is authorized under the caller's policies before anything else happens to it. */
  readonly iam?: IamAuthorizer;
  /** When given, EC2 requests take tokens from EC2's buckets for their account and Region, or are refused as EC2 refuses them. */
  readonly ec2RateLimits?: {
    readonly limiter: Ec2RateLimiter;
    readonly accountId: string;
    /** Whether a caller's request may be refused (else it takes what tokens there are). */
    readonly mayRefuse: (accessKeyId: string | undefined) => boolean;
    /** Whether a caller's requests take tokens at all. */
    readonly metered: (accessKeyId: string | undefined) => boolean;
  };
}

const MAX_BODY_BYTES = 10 * 1024 * 1024;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, reply: HttpReply, requestId: string): void {
  res.writeHead(reply.status, {
    'x-amzn-requestid': requestId,
    ...reply.headers,
    'content-length': Buffer.byteLength(reply.body),
  });
  res.end(reply.body);
}

/** The one HTTP endpoint: route, authorize (with `iam`), inject faults, run the handler, answer in the protocol's shape, log. */
export function createAwsServer(deps: ServerDeps): Server {
  // Request ids come from their own source so retries never shift the ids of tokens and events.
  const requestIds = new IdSource('requests');
  const record = (entry: Omit<RequestLogEntry, 'seq'>): void => {
    deps.requestLog.add(entry);
    deps.counters.record(entry);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const requestId = requestIds.uuid();
    const url = new URL(req.url ?? '/', 'http://localhost');
    let body: string;
    try {
      body = await readBody(req);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      res.writeHead(413, { 'content-type': 'text/plain' }).end('request body too large');
      return;
    }
    const request: IncomingRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
    };
    const routed = route(request);
    // IAM is the account's, not a region's: the CLI signs it for us-east-1 whatever the profile's region.
    const global = routed !== undefined && GLOBAL_SERVICES.includes(routed.call.service.name);
    const state = deps.stateFor(global ? undefined : routed?.scope?.region);
    const at = state.now();
    if (!routed) {
      const error = new AwsError(
        'UnrecognizedClientException',
        'cannot tell which service this request is for: sign it with SigV4 (credential scope) or use a known X-Amz-Target / Action',
      );
      send(
        res,
        {
          status: 400,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ __type: error.code, message: error.message }),
        },
        requestId,
      );
      record({
        at,
        service: 'unknown',
        operation: '',
        params: {},
        status: 400,
        errorCode: error.code,
        durationMs: performance.now() - started,
      });
      return;
    }
    const { call, scope } = routed;
    const service = call.service.name;
    const delay = deps.faults.delayFor(service, call.operation);
    if (delay > 0) await sleep(delay);
    const ctx: RequestContext = {
      state,
      faults: deps.faults,
      requestId,
      request,
      accessKeyId: scope?.accessKeyId,
      signingRegion: scope?.region,
      credentials: deps.credentials,
      ...(deps.iam ? { iam: deps.iam } : {}),
    };
    let reply: HttpReply;
    let errorCode: string | undefined;
    let principal: string | undefined;
    let denied: true | undefined;
    // What becomes of the connection: an answer, a reset before the call is served, or an answer lost after it was.
    let connection: 'answer' | 'reset' | 'lost' = 'answer';
    try {
      // Every request EC2 receives for an account and Region counts against its bucket, whatever
      // becomes of it next (IAM may still refuse it).
      if (deps.ec2RateLimits && service === 'ec2' && deps.ec2RateLimits.metered(scope?.accessKeyId))
        deps.ec2RateLimits.limiter.admit(
          { accountId: deps.ec2RateLimits.accountId, region: state.region },
          call.operation,
          isRecord(call.params) ? call.params : {},
          deps.ec2RateLimits.mayRefuse(scope?.accessKeyId),
        );
      if (deps.iam) {
        // Conditions read the account as it is now (tags, group membership): settle it first.
        state.settle();
        const verdict = authorizeCall(deps.iam, call, { state, scope, credentials: deps.credentials });
        principal = verdict.principal;
        if (verdict.refusal) {
          denied = true;
          throw verdict.refusal;
        }
      }
      // AWS decides on IAM before the service does anything: a fault only meets calls IAM let through.
      const decision = deps.faults.decide(service, call.operation, {
        ...(scope?.accessKeyId !== undefined ? { accessKeyId: scope.accessKeyId } : {}),
        params: call.params,
      });
      if (decision?.kind === 'throttle') throw call.service.throttlingError();
      if (decision?.kind === 'fail') throw new AwsError(decision.code, decision.message, decision.status);
      if (decision?.kind === 'reset' || decision?.kind === 'lost') connection = decision.kind;
      if (connection === 'reset') reply = { status: 0, headers: {}, body: '' };
      else {
        state.settle();
        reply = await call.invoke(ctx);
      }
    } catch (error) {
      const awsError = asAwsError(error);
      errorCode = awsError.code;
      reply = call.renderError(awsError, requestId);
    }
    if (connection === 'answer') send(res, reply, requestId);
    else req.socket.destroy();
    if (connection === 'reset') errorCode = 'ConnectionReset';
    record({
      at,
      service,
      operation: call.operation,
      params: call.params,
      status: reply.status,
      errorCode,
      region: scope?.region,
      accessKeyId: scope?.accessKeyId,
      ...(principal !== undefined ? { principal } : {}),
      ...(denied ? { denied } : {}),
      durationMs: performance.now() - started,
    });
  }

  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // Only transport failures land here (the client went away): nothing left to answer.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
}
