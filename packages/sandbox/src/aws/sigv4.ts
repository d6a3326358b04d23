import { timingSafeEqual } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { stableHex } from './ids.js';

/** A credential pair the emulator knows, with the identity GetCallerIdentity reports for it. */
export interface EmulatorCredential {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Temporary credentials (a Lambda role): a presigned URL must carry the same X-Amz-Security-Token. */
  readonly sessionToken?: string;
  /** Default: `arn:aws:iam::<account>:user/<userName>`. */
  readonly arn?: string;
  /** The IAM user the default ARN names; default: the access key id (a key the emulator was not told about). */
  readonly userName?: string;
  /** Default: derived from the ARN (`AIDA…`, or `AROA…:<session>` for an assumed role). */
  readonly userId?: string;
}

/** The AWS documentation's example pair; what tests and the sandbox sign with unless told otherwise. */
export const DEFAULT_CREDENTIALS: EmulatorCredential = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  // A user's ARN names the user, as in IAM, never its key: identities are printed, keys must not be.
  userName: 'sandbox-admin',
};

/** The identity a credential signs as: its ARN, or the IAM user of that name in the account. */
export function credentialArn(credential: EmulatorCredential, accountId: string): string {
  return credential.arn ?? `arn:aws:iam::${accountId}:user/${credential.userName ?? credential.accessKeyId}`;
}

/** `AKID/20260101/us-east-1/ec2/aws4_request`, split. */
export interface CredentialScope {
  readonly accessKeyId: string;
  readonly date: string;
  readonly region: string;
  readonly service: string;
}

export function parseCredentialScope(value: string): CredentialScope | undefined {
  const parts = value.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request') return undefined;
  const [accessKeyId, date, region, service] = parts;
  if (!accessKeyId || !date || !region || !service) return undefined;
  return { accessKeyId, date, region, service };
}

/** The scope of `Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`. */
export function scopeFromAuthorization(header: string | undefined): CredentialScope | undefined {
  const match = /Credential=([^,\s]+)/.exec(header ?? '');
  return match?.[1] ? parseCredentialScope(match[1]) : undefined;
}

export interface CallerIdentity {
  readonly arn: string;
  readonly accountId: string;
  readonly userId: string;
  readonly accessKeyId: string;
  /** The session of an assumed role (`…:assumed-role/<role>/<session>`). */
  readonly sessionName?: string;
}

/** What GetCallerIdentity reports for an access key (configured or not: ordinary calls are not verified). */
export function identityOf(
  accessKeyId: string,
  credentials: readonly EmulatorCredential[],
  accountId: string,
): CallerIdentity {
  const known = credentials.find((c) => c.accessKeyId === accessKeyId);
  const arn = known ? credentialArn(known, accountId) : `arn:aws:iam::${accountId}:user/${accessKeyId}`;
  const assumed = /^arn:aws[\w-]*:sts::(\d{12}):assumed-role\/[^/]+\/(.+)$/.exec(arn);
  const account = /^arn:aws[\w-]*:(?:iam|sts)::(\d{12}):/.exec(arn)?.[1] ?? accountId;
  // A role keeps one unique id across its sessions; the session name is appended after a colon.
  const principal = assumed ? arn.replace(/\/[^/]+$/, '') : arn;
  const unique = stableHex(`principal:${principal}`, 17).toUpperCase();
  const userId = known?.userId ?? (assumed?.[2] ? `AROA${unique}:${assumed[2]}` : `AIDA${unique}`);
  return { arn, accountId: account, userId, accessKeyId, sessionName: assumed?.[2] };
}

/** Presigned STS URLs (and so EKS tokens) are valid this long after X-Amz-Date, whatever X-Amz-Expires says. */
export const PRESIGNED_URL_VALIDITY_MS = 15 * 60_000;
/** How far in the future X-Amz-Date may be (clock skew STS tolerates). */
const MAX_FUTURE_SKEW_MS = 5 * 60_000;

/** Query parameters aws-iam-authenticator accepts in a token's URL (compared in lower case). */
const PARAMETER_ALLOWLIST = new Set([
  'action',
  'version',
  'x-amz-algorithm',
  'x-amz-credential',
  'x-amz-date',
  'x-amz-expires',
  'x-amz-security-token',
  'x-amz-signature',
  'x-amz-signedheaders',
]);

export type PresignVerification =
  | { readonly ok: true; readonly identity: CallerIdentity }
  | { readonly ok: false; readonly code: string; readonly reason: string };

export interface PresignCheck {
  /** The URL as presigned (scheme, host and query are all checked). */
  readonly url: URL;
  /** Values of the headers the signature may cover, by lower-case name (`host` included). */
  readonly headers: Readonly<Record<string, string>>;
  /** Header names that must be among the signed ones (`x-k8s-aws-id` for EKS tokens). */
  readonly requiredSignedHeaders?: readonly string[];
  readonly now: number;
  readonly credentials: readonly EmulatorCredential[];
  readonly accountId: string;
}

const fail = (code: string, reason: string): PresignVerification => ({ ok: false, code, reason });

function parseAmzDate(value: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number);
  return Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0);
}

/**
 * Checks a presigned STS GetCallerIdentity URL the way STS and aws-iam-authenticator do together:
 * allowed parameters only, a GetCallerIdentity action, a 15-minute validity from X-Amz-Date, a
 * known access key (and session token), the required signed headers, and finally the SigV4
 * signature itself, recomputed with @smithy/signature-v4 from the configured secret.
 */
export async function verifyPresignedCallerIdentity(check: PresignCheck): Promise<PresignVerification> {
  const { url } = check;
  if (url.pathname !== '/') return fail('InvalidRequest', 'unexpected path in pre-signed URL');
  const lower = new Map<string, string>();
  const seen = new Set<string>();
  for (const [key, value] of url.searchParams) {
    const k = key.toLowerCase();
    if (!PARAMETER_ALLOWLIST.has(k)) return fail('InvalidRequest', `non-allowlisted query parameter "${key}"`);
    if (seen.has(k)) return fail('InvalidRequest', 'query parameter with multiple values not supported');
    seen.add(k);
    lower.set(k, value);
  }
  if (lower.get('action') !== 'GetCallerIdentity')
    return fail('InvalidRequest', 'unexpected action parameter in pre-signed URL');
  if (lower.get('version') !== '2011-06-15')
    return fail('InvalidRequest', 'unexpected version parameter in pre-signed URL');
  if (lower.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256')
    return fail('IncompleteSignature', 'X-Amz-Algorithm must be AWS4-HMAC-SHA256');

  const signedHeaders = (lower.get('x-amz-signedheaders') ?? '').split(';').filter((h) => h !== '');
  for (const required of check.requiredSignedHeaders ?? []) {
    if (!signedHeaders.includes(required))
      return fail('InvalidRequest', `client did not sign the ${required} header in the pre-signed URL`);
  }
  if (!signedHeaders.includes('host')) return fail('IncompleteSignature', 'the host header must be signed');

  const expiresText = lower.get('x-amz-expires') ?? '';
  const expires = /^\d+$/.test(expiresText) ? Number(expiresText) : NaN;
  if (!(expires >= 0 && expires <= 900))
    return fail('InvalidRequest', `invalid X-Amz-Expires parameter in pre-signed URL: ${expiresText}`);

  const dateText = lower.get('x-amz-date') ?? '';
  const signedAt = parseAmzDate(dateText);
  if (signedAt === undefined)
    return fail(
      'IncompleteSignature',
      `X-Amz-Date parameter must be present and in the form YYYYMMDDTHHMMSSZ: ${dateText}`,
    );
  if (check.now > signedAt + PRESIGNED_URL_VALIDITY_MS)
    return fail(
      'ExpiredToken',
      `X-Amz-Date parameter is expired (15 minute expiration) ${new Date(signedAt).toISOString()}`,
    );
  if (signedAt > check.now + MAX_FUTURE_SKEW_MS)
    return fail('SignatureDoesNotMatch', `Signature not yet current: ${dateText} is still later than now`);

  const scope = parseCredentialScope(lower.get('x-amz-credential') ?? '');
  if (!scope) return fail('IncompleteSignature', 'malformed X-Amz-Credential');
  if (scope.service !== 'sts')
    return fail('SignatureDoesNotMatch', `credential scope names service ${scope.service}, not sts`);
  if (scope.date !== dateText.slice(0, 8))
    return fail('SignatureDoesNotMatch', 'credential scope date does not match X-Amz-Date');
  const credential = check.credentials.find((c) => c.accessKeyId === scope.accessKeyId);
  if (!credential) return fail('InvalidClientTokenId', 'The security token included in the request is invalid.');
  if ((lower.get('x-amz-security-token') ?? undefined) !== credential.sessionToken) {
    return fail('InvalidClientTokenId', 'The security token included in the request is invalid.');
  }

  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = check.headers[name];
    if (value === undefined)
      return fail(
        'SignatureDoesNotMatch',
        `cannot check a signature over header ${name}, which the request does not carry`,
      );
    headers[name] = value;
  }
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) {
    if (!key.toLowerCase().startsWith('x-amz-')) query[key] = value;
  }
  const presigned = await presignGet({
    url,
    query,
    headers,
    credential,
    region: scope.region,
    signedAt,
    expiresIn: expires,
  });
  const expected = presigned.get('X-Amz-Signature');
  const given = lower.get('x-amz-signature') ?? '';
  if (
    expected === null ||
    expected.length !== given.length ||
    !timingSafeEqual(Buffer.from(expected), Buffer.from(given))
  ) {
    return fail(
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided.',
    );
  }
  return { ok: true, identity: identityOf(credential.accessKeyId, check.credentials, check.accountId) };
}

export interface PresignInput {
  /** Scheme, host and port to sign for; path and query come from `query`. */
  readonly url: URL;
  /** Query parameters other than the X-Amz-* ones the signature adds. */
  readonly query: Readonly<Record<string, string>>;
  /** The headers to sign, `host` included, by lower-case name. */
  readonly headers: Readonly<Record<string, string>>;
  readonly credential: EmulatorCredential;
  readonly region: string;
  readonly signedAt: number;
  /** Seconds. */
  readonly expiresIn: number;
}

/**
 * Presigns `GET /` for STS with @smithy/signature-v4, as botocore and the SDK do (NOTES: identical
 * signatures for fixed credentials and time). Returns the full query, X-Amz-* parameters included.
 */
export async function presignGet(input: PresignInput): Promise<URLSearchParams> {
  const { credential, url } = input;
  const signer = new SignatureV4({
    credentials: {
      accessKeyId: credential.accessKeyId,
      secretAccessKey: credential.secretAccessKey,
      sessionToken: credential.sessionToken,
    },
    region: input.region,
    service: 'sts',
    sha256: Hash.bind(null, 'sha256'),
  });
  const request = new HttpRequest({
    method: 'GET',
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: '/',
    query: { ...input.query },
    headers: { ...input.headers },
  });
  const signed = await signer.presign(request, {
    signingDate: new Date(input.signedAt),
    expiresIn: input.expiresIn,
    signingRegion: input.region,
  });
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(signed.query ?? {})) {
    if (typeof value === 'string') query.append(key, value);
  }
  return query;
}
