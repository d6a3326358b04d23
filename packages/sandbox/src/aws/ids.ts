import { createHash } from 'node:crypto';

/**
 * Deterministic identifiers: the same scenario run twice yields the same request ids, tokens and
 * event ids, so reports and logs of sandbox runs can be compared byte for byte.
 */
export class IdSource {
  private counter = 0;

  constructor(private readonly seed = 'aws-emulator') {}

  /** `length` lowercase hex digits, unique per call. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) {
      out += createHash('sha256').update(`${this.seed}:${this.counter++}`).digest('hex');
    }
    return out.slice(0, length);
  }

  /** A version-4-shaped UUID (lifecycle action tokens must be 36 characters). */
  uuid(): string {
    const h = this.hex(32);
    const variant = ((parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

/** A stable hex digest of a value, for ids derived from names (subnets per zone, VPC per region). */
export function stableHex(value: string, length: number): string {
  return createHash('sha256').update(value).digest('hex').slice(0, length);
}

/** A version-4-shaped UUID derived from a value: the same resource gets the same id in every run. */
export function stableUuid(value: string): string {
  const hex = stableHex(value, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
