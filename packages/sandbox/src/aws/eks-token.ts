import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import { DNS_SUFFIXES } from './partitions.js';
import {
  DEFAULT_CREDENTIALS,
  presignGet,
  verifyPresignedCallerIdentity,
  type CallerIdentity,
  type EmulatorCredential,
} from './sigv4.js';

export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
const MAX_TOKEN_LENGTH = 4096;
const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/** STS hostnames of every partition (global and regional), as aws-iam-authenticator allows them. */
const STS_HOST = new RegExp(`^sts(\\.[a-z0-9-]+)?\\.(${DNS_SUFFIXES.map((s) => s.replace(/\./g, '\\.')).join('|')})$`);

export interface EksTokenOptions {
  readonly clock: Clock;
  readonly accountId: string;
  /** Default: the one DEFAULT_CREDENTIALS pair. */
  readonly credentials?: readonly EmulatorCredential[];
  /**
   * Hosts (`host[:port]`) accepted besides the AWS STS hostnames, e.g. the emulator's own
   * endpoint when a client presigns against it; these may be plain http.
   */
  readonly extraHosts?: readonly string[];
}

export type EksTokenVerification =
  ({ readonly ok: true } & CallerIdentity) | { readonly ok: false; readonly reason: string };

const reject = (reason: string): EksTokenVerification => ({ ok: false, reason });

/**
 * Verifies an EKS bearer token (`k8s-aws-v1.` + base64url of a presigned STS GetCallerIdentity URL)
 * for one cluster, as aws-iam-authenticator and STS do between them, without calling anything:
 * the Kubernetes emulator's authenticator hook calls this and maps `arn` to a user.
 */
export async function verifyEksToken(
  token: string,
  clusterName: string,
  options: EksTokenOptions,
): Promise<EksTokenVerification> {
  if (token.length > MAX_TOKEN_LENGTH) return reject('token is too large');
  if (!token.startsWith(EKS_TOKEN_PREFIX)) return reject(`token is missing expected "${EKS_TOKEN_PREFIX}" prefix`);
  const encoded = token.slice(EKS_TOKEN_PREFIX.length);
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return reject('token is not base64url (no padding)');
  let url: URL;
  try {
    url = new URL(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return reject('token does not hold a URL');
  }
  const extra = options.extraHosts ?? [];
  if (extra.includes(url.host)) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      return reject(`unexpected scheme "${url.protocol}" in pre-signed URL`);
  } else {
    if (url.protocol !== 'https:')
      return reject(`unexpected scheme "${url.protocol.replace(':', '')}" in pre-signed URL`);
    if (!STS_HOST.test(url.host)) return reject(`unexpected hostname "${url.host}" in pre-signed URL`);
  }
  const verdict = await verifyPresignedCallerIdentity({
    url,
    // The authenticator sends the cluster it serves as x-k8s-aws-id: a token for another cluster fails the signature.
    headers: { host: url.host, [CLUSTER_ID_HEADER]: clusterName },
    requiredSignedHeaders: [CLUSTER_ID_HEADER],
    now: options.clock.now(),
    credentials: options.credentials ?? [DEFAULT_CREDENTIALS],
    accountId: options.accountId,
  });
  return verdict.ok ? { ok: true, ...verdict.identity } : reject(verdict.reason);
}

export interface CreateEksTokenOptions {
  readonly clusterName: string;
  readonly region: string;
  readonly clock: Clock;
  /** Default: DEFAULT_CREDENTIALS. */
  readonly credentials?: EmulatorCredential;
  /** Default: `sts.<region>.amazonaws.com` over https, as the AWS CLI presigns. */
  readonly url?: string;
  /** Seconds; ignored by STS, which honours 15 minutes anyway. Default 60, as every EKS client sends. */
  readonly expiresIn?: number;
}

/** Makes an EKS token the way `aws eks get-token` does (for tests of the Kubernetes emulator's authenticator). */
export async function createEksToken(options: CreateEksTokenOptions): Promise<string> {
  const url = new URL(options.url ?? `https://sts.${options.region}.amazonaws.com/`);
  const query = await presignGet({
    url,
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
    headers: { host: url.host, [CLUSTER_ID_HEADER]: options.clusterName },
    credential: options.credentials ?? DEFAULT_CREDENTIALS,
    region: options.region,
    signedAt: options.clock.now(),
    expiresIn: options.expiresIn ?? 60,
  });
  const presigned = `${url.protocol}//${url.host}/?${query.toString()}`;
  return EKS_TOKEN_PREFIX + Buffer.from(presigned, 'utf8').toString('base64url');
}
