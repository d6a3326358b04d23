import type { AwsError } from '../errors.js';

/**
 * Offset pagination behind an opaque token. Tokens carry a prefix per operation so one from
 * another call is refused rather than silently misread.
 */
export function paginate<T>(
  items: readonly T[],
  page: { readonly size: number | undefined; readonly token: string | undefined; readonly kind: string },
  invalidToken: (token: string) => AwsError,
): { readonly items: readonly T[]; readonly nextToken?: string } {
  let start = 0;
  if (page.token !== undefined) {
    const decoded = Buffer.from(page.token, 'base64url').toString('utf8');
    const match = new RegExp(`^${page.kind}:(\\d+)$`).exec(decoded);
    const offset = match?.[1] === undefined ? NaN : Number(match[1]);
    if (!Number.isSafeInteger(offset)) throw invalidToken(page.token);
    start = offset;
  }
  if (page.size === undefined) return { items: items.slice(start) };
  const end = start + page.size;
  const slice = items.slice(start, end);
  return end < items.length
    ? { items: slice, nextToken: Buffer.from(`${page.kind}:${end}`, 'utf8').toString('base64url') }
    : { items: slice };
}

/**
 * Cursor pagination over a filtered scan: the token carries the position (in the underlying
 * order) of the next match, so each page scans only from there and a whole listing costs one pass
 * over the items, not one per page. `from(start)` yields each candidate at or after `start` with its
 * position, ascending.
 * As with `paginate`, a token is given only when another match exists.
 */
export function scanPage<T>(
  from: (start: number) => Iterable<readonly [T, number]>,
  keep: (item: T) => boolean,
  page: { readonly size: number | undefined; readonly token: string | undefined; readonly kind: string },
  invalidToken: (token: string) => AwsError,
): { readonly items: readonly T[]; readonly nextToken?: string } {
  let start = 0;
  if (page.token !== undefined) {
    const decoded = Buffer.from(page.token, 'base64url').toString('utf8');
    const match = new RegExp(`^${page.kind}@(\\d+)$`).exec(decoded);
    const position = match?.[1] === undefined ? NaN : Number(match[1]);
    if (!Number.isSafeInteger(position)) throw invalidToken(page.token);
    start = position;
  }
  const size = page.size ?? Infinity;
  const out: T[] = [];
  for (const [item, position] of from(start)) {
    if (position < start || !keep(item)) continue;
    if (out.length === size)
      return { items: out, nextToken: Buffer.from(`${page.kind}@${position}`, 'utf8').toString('base64url') };
    out.push(item);
  }
  return { items: out };
}
