// URL → what the request is about, as k8s.io/apiserver RequestInfoFactory parses it; the same
// attributes feed routing, authorization, fault matching and the request log.
import type { RequestAttributes } from './rbac.js';

export type RequestInfo = RequestAttributes & {
  readonly apiVersion: string;
  /** `/api` or `/apis` for resource requests. */
  readonly prefix: string;
};

const SPECIAL_VERBS = new Set(['proxy', 'watch']);
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const segments = path.split('/').filter((s) => s !== '');
  const base = {
    path,
    apiGroup: '',
    apiVersion: '',
    prefix: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
  const nonResource = (): RequestInfo => ({ ...base, verb: method.toLowerCase(), isResourceRequest: false });
  const [root] = segments;
  if (root !== 'api' && root !== 'apis') return nonResource();
  let rest: string[];
  let apiGroup = '';
  let apiVersion: string;
  if (root === 'api') {
    if (segments.length < 3) return nonResource();
    apiVersion = segments[1] ?? '';
    rest = segments.slice(2);
  } else {
    if (segments.length < 4) return nonResource();
    apiGroup = segments[1] ?? '';
    apiVersion = segments[2] ?? '';
    rest = segments.slice(3);
  }
  if (rest[0] !== undefined && SPECIAL_VERBS.has(rest[0])) rest = rest.slice(1);
  let namespace = '';
  // /namespaces/<ns>/<resource>…, except /namespaces and /namespaces/<name>[/status] themselves.
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    namespace = rest[1] ?? '';
    if (rest.length >= 3 && !NAMESPACE_SUBRESOURCES.has(rest[2] ?? '')) rest = rest.slice(2);
  }
  const [resource = '', name = '', subresource = ''] = rest;
  let verb: string;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = query.get('watch') === 'true' || query.get('watch') === '1' ? 'watch' : name === '' ? 'list' : 'get';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name === '' ? 'deletecollection' : 'delete';
      break;
    default:
      verb = method.toLowerCase();
  }
  return {
    ...base,
    prefix: `/${root}`,
    isResourceRequest: true,
    verb,
    apiGroup,
    apiVersion,
    namespace,
    resource,
    name,
    subresource: rest.length > 3 ? rest.slice(2).join('/') : subresource,
  };
}
