// IAM's two kinds of pattern: actions (case-insensitive globs) and ARNs (case-sensitive globs,
// matched segment by segment).

const globCache = new Map<string, RegExp>();

/**
 * `*` matches any run of characters (none included), `?` exactly one; everything else is literal.
 * IAM has no escape for either, so a literal `*` cannot be asked for.
 */
export function globToRegExp(pattern: string, ignoreCase = false): RegExp {
  const cacheKey = `${ignoreCase ? 'i' : 's'}:${pattern}`;
  const cached = globCache.get(cacheKey);
  if (cached) return cached;
  const body = [...pattern]
    .map((c) => {
      if (c === '*') return '.*';
      if (c === '?') return '.';
      return c.replace(/[\\^$.|+()[\]{}/-]/g, '\\$&');
    })
    .join('');
  // `s`: a value may hold newlines (a tag value), and `.` must match them as `*` promises.
  const regExp = new RegExp(`^${body}$`, ignoreCase ? 'is' : 's');
  globCache.set(cacheKey, regExp);
  return regExp;
}

export const globMatches = (pattern: string, value: string, ignoreCase = false): boolean =>
  globToRegExp(pattern, ignoreCase).test(value);

/**
 * Action names are case-insensitive (`EC2:describeinstances` is `ec2:DescribeInstances`), and a
 * pattern may hold wildcards anywhere (`ec2:Describe*`, `*`).
 */
export const actionMatches = (pattern: string, action: string): boolean => globMatches(pattern, action, true);

/** `arn:partition:service:region:account:resource`; the resource part keeps its own colons. */
function splitArn(arn: string): readonly string[] | undefined {
  const parts = arn.split(':');
  if (parts.length < 6 || parts[0] !== 'arn') return undefined;
  return [...parts.slice(0, 5), parts.slice(5).join(':')];
}

/**
 * A Resource pattern against a request's resource, as IAM and the ARN condition operators match:
 * `*` alone matches everything (including the `*` of actions that have no resource type);
 * otherwise each of the six ARN segments is matched on its own, case-sensitively, wildcards
 * never reaching into the next segment except within the resource part, which may hold `:` and `/`.
 */
export function arnMatches(pattern: string, resource: string): boolean {
  if (pattern === '*') return true;
  const patternParts = splitArn(pattern);
  const resourceParts = splitArn(resource);
  if (!patternParts || !resourceParts) return globMatches(pattern, resource);
  return patternParts.every((part, index) => globMatches(part, resourceParts[index] ?? ''));
}
