// Secrets that must never reach a log: bearer tokens (EKS's `k8s-aws-v1.` tokens, `Authorization:
// Bearer …`), AWS access key ids, secret access keys and session tokens — by their shapes, and the
// values the sandbox issued by their exact text. A finding names the kind and where, never the value.

export type SecretKind =
  | 'EKS bearer token'
  | 'bearer token'
  | 'AWS access key id'
  | 'AWS secret access key'
  | 'AWS session token'
  | 'sandbox-issued access key id'
  | 'sandbox-issued secret access key'
  | 'sandbox-issued session token';

/** Credentials known by value: the sandbox's own and every pair it issued. */
export interface KnownCredential {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

const TOKEN_CHARS = '[A-Za-z0-9._~+/=-]';
const PATTERNS: readonly { readonly kind: SecretKind; readonly pattern: RegExp }[] = [
  // EKS: `k8s-aws-v1.` and a base64url presigned STS URL.
  { kind: 'EKS bearer token', pattern: /k8s-aws-v1\.[A-Za-z0-9_-]{20,}/g },
  // An Authorization header's credentials; a token has a digit or a symbol, which prose ("bearer authentication") has not.
  {
    kind: 'bearer token',
    pattern: new RegExp(`\\bbearer\\s+(?=${TOKEN_CHARS}*[0-9._~+/=-])${TOKEN_CHARS}{8,}`, 'gi'),
  },
  // A JSON Web Token on its own (a service account's, an OIDC id token): three base64url parts, the first two JSON objects.
  { kind: 'bearer token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // Long-term (AKIA) and temporary (ASIA) key ids, and the other IAM-issued prefixes of that form.
  { kind: 'AWS access key id', pattern: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Z0-9])/g },
  // 40 base64 characters are anything (hashes, data) unless something calls them a secret key.
  {
    kind: 'AWS secret access key',
    // Its 40 characters as written, or URL-encoded (%2F, %2B).
    pattern: /(?:secret_?access_?key|aws_?secret)["'\s:=]{1,16}(?:[A-Za-z0-9/+]|%2[FB]){40}(?![A-Za-z0-9/+%])/gi,
  },
  {
    kind: 'AWS session token',
    pattern: /(?:session_?token|security_?token|x-amz-security-token)["'\s:=]{1,5}[A-Za-z0-9/+=%]{16,}/gi,
  },
  // STS session tokens start with the base64 of their version header.
  { kind: 'AWS session token', pattern: /IQoJb3JpZ2luX2Vj[A-Za-z0-9/+=]{20,}/g },
];

export interface SecretFinding {
  readonly kind: SecretKind;
  /** Where the match ends in the text (for scanning a stream chunk by chunk). */
  readonly end: number;
}

/** Every secret in `text`: by pattern, and each known credential's parts by their exact text. */
export function findSecrets(text: string, known: Iterable<KnownCredential> = []): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const { kind, pattern } of PATTERNS)
    for (const match of text.matchAll(pattern)) findings.push({ kind, end: match.index + match[0].length });
  const exact = (value: string | undefined, kind: SecretKind) => {
    if (value === undefined || value.length < 8) return;
    for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1))
      findings.push({ kind, end: at + value.length });
  };
  // As written, and as a URL or a query string carries them.
  const both = (value: string | undefined, kind: SecretKind) => {
    exact(value, kind);
    if (value !== undefined && encodeURIComponent(value) !== value) exact(encodeURIComponent(value), kind);
  };
  for (const credential of known) {
    both(credential.accessKeyId, 'sandbox-issued access key id');
    both(credential.secretAccessKey, 'sandbox-issued secret access key');
    both(credential.sessionToken, 'sandbox-issued session token');
  }
  return findings;
}

/**
 * A stream scanned chunk by chunk: each chunk with the tail of the one before, so that a secret
 * split across two writes is still found, and found once.
 */
export class SecretScanner {
  private tail = '';

  constructor(
    private readonly known: () => Iterable<KnownCredential>,
    private readonly onFinding: (kind: SecretKind) => void,
    /** The longest secret the scanner joins across chunks. */
    private readonly overlap = 4_096,
  ) {}

  write(chunk: string): void {
    const text = this.tail + chunk;
    for (const finding of findSecrets(text, this.known()))
      if (finding.end > this.tail.length) this.onFinding(finding.kind);
    this.tail = text.slice(-this.overlap);
  }
}
