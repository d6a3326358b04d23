// The HTTP front: authentication, RBAC, fault injection and the request log around the handlers,
// on 127.0.0.1 and a random port.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { systemClock, type Clock } from '@ec2-node-reconciler/model/clock.js';
import { authenticate, type AuthOptions, type UserInfo } from './auth.js';
import { impersonate, impersonationOf } from './impersonation.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, serverVersion, versionInfo } from './discovery.js';
import { forbidden, internalError, StatusError, unauthorized } from './errors.js';
import { Faults, reasonForCode, type FaultRule } from './faults.js';
import { handleResource, type Answer } from './handlers.js';
import type { KubeletOptions } from './kubelet.js';
import { kubeconfigYaml, writeKubeconfig, type KubeconfigOptions } from './kubeconfig.js';
import { openApiGroupVersion, openApiRoot } from './openapi.js';
import { PROTOBUF, protobufBodyToJson } from './protobuf.js';
import { forbiddenMessage, RbacAuthorizer, rbacObjects } from './rbac.js';
import { requestInfo, type RequestInfo } from './request-info.js';
import { RequestLog } from './request-log.js';
import { KubeStore } from './store.js';
import { selfSignedCertificate, type Certificate } from './tls.js';
import { toJsonBytes } from './serialize.js';

export type KubeEmulatorOptions = {
  /**
   * The emulator's time: heartbeats, grace periods, ages. A VirtualClock for tests and the
   * sandbox; for real-time clients (kubectl drain waits in wall time) use systemClock, or a
   * VirtualClock advanced from a timer (see `driveInRealTime`). @default systemClock
   */
  readonly clock?: Clock;
  /** Bearer-token authentication. @default - none: every request acts as a cluster admin */
  readonly auth?: AuthOptions;
  /**
   * Enables RBAC authorization. Manifests (YAML text or objects) are stored as served objects
   * (ClusterRole, Role and their bindings; other kinds are ignored), and every decision reads the
   * served objects: what `kubectl apply` changes governs every identity. An authorizer is used as
   * it is. @default - every request allowed
   */
  readonly rbac?: readonly (string | Record<string, unknown>)[] | RbacAuthorizer;
  /** Faults present from the start. */
  readonly faults?: {
    readonly latencyMs?: number;
    readonly rules?: readonly FaultRule[];
    readonly random?: () => number;
  };
  readonly kubelet?: KubeletOptions;
  /** @default 'random' */
  readonly uids?: 'random' | 'sequential';
  /** The Kubernetes minor version the server reports (kubectl's dispatcher picks its binary by it). @default '1.31' */
  readonly version?: string;
  /**
   * Serve https with a self-signed certificate (or the one given); kubeconfigs then trust it.
   * Needed for kubectl with tokens: kubectl sends credentials only over TLS. @default false
   */
  readonly tls?: boolean | Certificate;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** Request log capacity. @default 100_000 */
  readonly requestLogCapacity?: number;
};

export type KubeEmulator = {
  /** `http://127.0.0.1:<port>` (https with `tls`) */
  readonly url: string;
  /** The server certificate (PEM) when serving TLS. */
  readonly caCert: string | undefined;
  readonly port: number;
  readonly clock: Clock;
  readonly store: KubeStore;
  readonly requestLog: RequestLog;
  readonly faults: Faults;
  /** Writes a kubeconfig for this server; returns its path. */
  writeKubeconfig(path: string, options?: KubeconfigOptions): Promise<string>;
  /** The kubeconfig YAML (for KubeConfig.loadFromString). */
  kubeconfig(options?: KubeconfigOptions): string;
  close(): Promise<void>;
};

const MAX_BODY = 16 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new StatusError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 16777216'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The API server compresses answers of 128 KB or more for clients that accept gzip, at gzip's fastest level. */
const GZIP_THRESHOLD = 128 * 1024;
const gzipFast = promisify(gzip);

async function send(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
  acceptEncoding = '',
): Promise<void> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : toJsonBytes(body);
  const compress = bytes.byteLength >= GZIP_THRESHOLD && /\bgzip\b/.test(acceptEncoding);
  const out = compress ? await gzipFast(bytes, { level: 1 }) : bytes;
  res.writeHead(code, {
    'Content-Type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    'Content-Length': out.byteLength,
    'Cache-Control': 'no-cache, private',
    ...(compress ? { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } : {}),
    ...headers,
  });
  res.end(out);
}

/** A Warning header value (RFC 7234) as the API server writes them: `299 - "<text>"`. */
const warningHeader = (text: string): string => `299 - ${JSON.stringify(text)}`;

export async function startKubeEmulator(options: KubeEmulatorOptions = {}): Promise<KubeEmulator> {
  const clock = options.clock ?? systemClock;
  const store = new KubeStore(clock, {
    ...(options.kubelet === undefined ? {} : { kubelet: options.kubelet }),
    ...(options.uids === undefined ? {} : { uids: options.uids }),
  });
  const faults = new Faults(options.faults?.random);
  faults.latencyMs = options.faults?.latencyMs ?? 0;
  for (const rule of options.faults?.rules ?? []) faults.add(rule);
  const requestLog = new RequestLog(options.requestLogCapacity);
  let rbac: RbacAuthorizer | undefined;
  if (options.rbac instanceof RbacAuthorizer) rbac = options.rbac;
  else if (options.rbac !== undefined) {
    for (const object of rbacObjects(options.rbac)) store.seed(object);
    rbac = new RbacAuthorizer(store.rbacSource());
  }
  const version = serverVersion(options.version ?? '1.31');
  let address = '127.0.0.1:0';
  // The server's time is the emulator's clock, as a real API server's Date header is its own: a
  // client on another clock (the CLI against a served sandbox) can follow it.
  const httpDate = (): string => new Date(clock.now()).toUTCString();

  const nonResource = (info: RequestInfo): Answer => {
    if (info.verb !== 'get')
      throw new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    const segments = info.path.split('/').filter((s) => s !== '');
    const [root, second, third] = segments;
    if (info.path === '/version' || info.path === '/version/') return { code: 200, body: versionInfo(version) };
    if (info.path === '/healthz' || info.path === '/livez' || info.path === '/readyz') return { code: 200, body: 'ok' };
    if (root === 'api' && segments.length === 1) return { code: 200, body: apiVersions(address) };
    if (root === 'api' && segments.length === 2 && second !== undefined) {
      const list = apiResourceList('', second);
      if (list !== undefined) return { code: 200, body: list };
    }
    if (root === 'apis' && segments.length === 1) return { code: 200, body: apiGroupList() };
    if (root === 'apis' && segments.length === 2 && second !== undefined) {
      const group = apiGroup(second);
      if (group !== undefined) return { code: 200, body: group };
    }
    if (root === 'apis' && segments.length === 3 && second !== undefined && third !== undefined) {
      const list = apiResourceList(second, third);
      if (list !== undefined) return { code: 200, body: list };
    }
    if (root === 'openapi' && second === 'v3') {
      if (segments.length === 2) return { code: 200, body: openApiRoot(version.gitVersion) };
      const document = openApiGroupVersion(segments.slice(2).join('/'), version.gitVersion);
      if (document !== undefined) return { code: 200, body: document };
    }
    return { code: 404, body: '404 page not found\n' };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    const at = clock.now();
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://emulator');
    const info = requestInfo(method, url.pathname, url.searchParams);
    let status = 0;
    let injected = false;
    let user: UserInfo | undefined;
    let body = '';
    try {
      const raw = await readBody(req);
      const protobuf = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === PROTOBUF;
      body = protobuf ? '' : raw.toString('utf8');
      // Authentication comes first, as in the API server's filter chain (API Priority and Fairness
      // classifies requests by user): injected faults are logged with who was refused.
      user = await authenticate(options.auth, req.headers.authorization);
      if (user === undefined) throw unauthorized();
      // kubectl --as / --as-group: the request acts as someone else, if the caller may impersonate them.
      const impersonation = impersonationOf(req.headers);
      if (impersonation !== undefined) user = impersonate(user, impersonation, rbac);
      const decision = faults.decide({ ...info, user: user.name });
      if (decision.delayMs > 0) await sleep(decision.delayMs);
      const effect = decision.effect;
      if (effect !== undefined && 'reset' in effect) {
        injected = true;
        req.socket.destroy();
        return;
      }
      const answerLost = effect !== undefined && 'lost' in effect;
      if (effect !== undefined && 'status' in effect) {
        const e = effect;
        injected = true;
        throw new StatusError(
          e.status,
          e.reason ?? reasonForCode(e.status),
          e.message ?? `injected fault: ${e.status}`,
          e.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: e.retryAfterSeconds },
          e.retryAfterSeconds,
        );
      }
      if (rbac !== undefined && !rbac.authorize(user, info).allowed) {
        throw forbidden(forbiddenMessage(user, info), { group: info.apiGroup, resource: info.resource }, info.name);
      }
      // Protobuf bodies (kubectl ≥1.32's access reviews) are decoded to their JSON shape.
      if (protobuf && raw.length > 0) body = protobufBodyToJson(raw, info.resource);
      const answer = info.isResourceRequest
        ? handleResource({
            store,
            info,
            query: url.searchParams,
            body,
            contentType: (req.headers['content-type'] ?? '').startsWith(PROTOBUF)
              ? 'application/json'
              : (req.headers['content-type'] ?? 'application/json'),
            accept: req.headers.accept ?? '',
            user,
            rbac,
            ...(req.headers['user-agent'] !== undefined ? { userAgent: req.headers['user-agent'] } : {}),
          })
        : nonResource(info);
      status = answer.code;
      // The change is made; the answer never arrives.
      if (answerLost) {
        injected = true;
        req.socket.destroy();
        return;
      }
      await send(
        res,
        answer.code,
        answer.body,
        {
          Date: httpDate(),
          ...((answer.warnings ?? []).length > 0 ? { Warning: (answer.warnings ?? []).map(warningHeader) } : {}),
        },
        req.headers['accept-encoding'] ?? '',
      );
    } catch (error) {
      const failure =
        error instanceof StatusError ? error : internalError(error instanceof Error ? error.message : String(error));
      status = failure.code;
      if (!res.headersSent) {
        await send(res, failure.code, failure.toStatus(), {
          Date: httpDate(),
          ...(failure.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(failure.retryAfterSeconds) }),
        });
      }
    } finally {
      let logged: unknown;
      if (body !== '' && info.verb !== 'get' && info.verb !== 'list') {
        try {
          logged = JSON.parse(body) as unknown;
        } catch {
          logged = body;
        }
      }
      requestLog.add({
        at,
        method,
        path: url.pathname,
        query: url.search,
        verb: info.verb,
        resource: info.resource,
        subresource: info.subresource,
        namespace: info.namespace,
        name: info.name,
        user: user?.name ?? '',
        status,
        latencyMs: performance.now() - started,
        ...(injected ? { injected: true as const } : {}),
        ...(logged === undefined ? {} : { body: logged }),
      });
    }
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) void send(res, 500, internalError(String(error)).toStatus());
    });
  };
  const certificate = options.tls === true ? selfSignedCertificate() : options.tls === false ? undefined : options.tls;
  const server =
    certificate === undefined
      ? createServer(listener)
      : createTlsServer({ cert: certificate.cert, key: certificate.key }, listener);
  // kubectl keeps connections alive between calls; do not hold close() hostage to them.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  address = `127.0.0.1:${port}`;
  const url = `${certificate === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  const trust = certificate === undefined ? {} : { caCert: certificate.cert };

  return {
    url,
    port,
    clock,
    store,
    requestLog,
    faults,
    caCert: certificate?.cert,
    writeKubeconfig: (path, kubeconfigOptions) => writeKubeconfig(path, url, kubeconfigOptions, trust),
    kubeconfig: (kubeconfigOptions) => kubeconfigYaml(url, kubeconfigOptions, trust),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
