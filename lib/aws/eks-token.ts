import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import { partitionOfRegion } from '@ec2-node-reconciler/model/partition.js';

/** Tokens are valid 15 minutes server-side; regenerate well before (docs/design.md §6). */
export const TOKEN_REFRESH_MS = 14 * 60_000;
const PRESIGN_EXPIRES_SECONDS = 60;

export interface EksTokenOptions {
  readonly cluster: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  readonly clock: Clock;
  /** STS host; the region's endpoint in its partition by default (stsHost), as aws-iam-authenticator expects. */
  readonly stsHost?: string;
}

/** The regional STS endpoint's host in the region's partition: `sts.<region>.<partition DNS suffix>`. */
export function stsHost(region: string): string {
  const suffix = partitionOfRegion(region)?.dnsSuffix ?? 'amazonaws.com';
  return `sts.${region}.${suffix}`;
}

/**
 * The EKS bearer token: `k8s-aws-v1.` + base64url (no padding) of a presigned STS
 * GetCallerIdentity URL whose signed headers include `x-k8s-aws-id: <cluster>` — exactly what
 * `aws eks get-token` produces.
 */
export async function createEksToken(options: EksTokenOptions): Promise<string> {
  const host = options.stsHost ?? stsHost(options.region);
  const signer = new SignatureV4({
    credentials: options.credentials,
    region: options.region,
    service: 'sts',
    sha256: Sha256,
  });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname: host,
    path: '/',
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
    headers: { host, 'x-k8s-aws-id': options.cluster },
  });
  const signed = await signer.presign(request, {
    expiresIn: PRESIGN_EXPIRES_SECONDS,
    signingDate: new Date(options.clock.now()),
  });
  const query = Object.entries(signed.query ?? {})
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
    .join('&');
  const url = `https://${host}/?${query}`;
  return `k8s-aws-v1.${Buffer.from(url, 'utf8').toString('base64url')}`;
}

/**
 * A token cached for the life of a warm container and regenerated before it expires.
 * The one module-level state this product allows: what a Lambda keeps between invocations.
 */
export class EksTokenSource {
  private cached: { token: string; createdAt: number } | undefined;

  constructor(private readonly options: EksTokenOptions) {}

  async token(): Promise<string> {
    const now = this.options.clock.now();
    if (this.cached && now - this.cached.createdAt < TOKEN_REFRESH_MS) return this.cached.token;
    const token = await createEksToken(this.options);
    this.cached = { token, createdAt: now };
    return token;
  }

  /** Forget the token (after a 401) so the next call makes a fresh one. */
  invalidate(): void {
    this.cached = undefined;
  }
}

/** Decodes a token back to its presigned URL (for tests and the STS emulator). */
export function decodeEksToken(token: string): URL {
  if (!token.startsWith('k8s-aws-v1.')) throw new Error('not an EKS token: missing the k8s-aws-v1. prefix');
  return new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
}
