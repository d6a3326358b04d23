import { AwsError } from '../errors.js';

/** A decoded query-protocol parameter: a scalar, a list (`X.N`) or a structure (`X.Member`). */
export type QueryValue = string | readonly QueryValue[] | { readonly [key: string]: QueryValue };

type Tree = { [key: string]: Tree | string };

/**
 * Decodes flat query parameters (`Filter.1.Name=…&Filter.1.Value.1=…`) into nested values
 * (`{ Filter: [{ Name, Value: […] }] }`), so handlers validate one plain object with a schema.
 *
 * EC2 lists are `Name.N`; awsquery lists are `Name.member.N`. With `collapseMember`, the `member`
 * level disappears, so both read the same. Lists are 1-based on the wire; indexes only order them.
 */
export function decodeQueryParams(
  params: URLSearchParams,
  options: { collapseMember: boolean },
): Record<string, QueryValue> {
  const root: Tree = {};
  for (const [key, value] of params) {
    if (key === 'Action' || key === 'Version' || key.startsWith('X-Amz-')) continue;
    const segments = key.split('.');
    let node = root;
    segments.forEach((segment, index) => {
      if (segment === '') throw new AwsError('MalformedQueryString', `malformed parameter name: ${key}`);
      const last = index === segments.length - 1;
      const existing = node[segment];
      if (last) {
        if (existing !== undefined)
          throw new AwsError(
            'MalformedQueryString',
            `parameter given twice or as both a value and a structure: ${key}`,
          );
        node[segment] = value;
        return;
      }
      if (typeof existing === 'string')
        throw new AwsError('MalformedQueryString', `parameter is both a value and a structure: ${key}`);
      const child: Tree = existing ?? {};
      node[segment] = child;
      node = child;
    });
  }
  return shape(root, options.collapseMember) as Record<string, QueryValue>;
}

const INDEX = /^[1-9]\d*$/;

function shape(tree: Tree | string, collapseMember: boolean): QueryValue {
  if (typeof tree === 'string') return tree;
  const keys = Object.keys(tree);
  if (keys.length > 0 && keys.every((k) => INDEX.test(k))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => shape(tree[k] ?? '', collapseMember));
  }
  if (collapseMember && keys.length === 1 && keys[0] === 'member') {
    const members = tree.member;
    // An awsquery list: `X.member.N`; a lone `X.member` without indexes is not a list, keep it as is.
    if (members !== undefined && typeof members !== 'string') {
      const value = shape(members, collapseMember);
      if (Array.isArray(value)) return value as readonly QueryValue[];
    }
  }
  const out: Record<string, QueryValue> = {};
  for (const key of keys) out[key] = shape(tree[key] ?? '', collapseMember);
  return out;
}

/** Decodes, keeping a malformed request's error to be answered in the protocol's own shape. */
export function tryDecodeQueryParams(
  params: URLSearchParams,
  options: { collapseMember: boolean },
): { readonly params: Record<string, QueryValue>; readonly error?: AwsError } {
  try {
    return { params: decodeQueryParams(params, options) };
  } catch (error) {
    return {
      params: {},
      error: error instanceof AwsError ? error : new AwsError('MalformedQueryString', String(error)),
    };
  }
}
