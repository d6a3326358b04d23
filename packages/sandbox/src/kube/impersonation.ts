// User impersonation (`kubectl --as`, `--as-group`), as k8s.io/apiserver's WithImpersonation filter
// does it: the caller must be allowed the `impersonate` verb on each user (or service account),
// group, uid and extra it asks for; the request then acts as that user, with the groups asked for
// (a service account's own groups when none are) and system:authenticated.
import type { IncomingHttpHeaders } from 'node:http';
import type { UserInfo } from './auth.js';
import { badRequest, forbidden } from './errors.js';
import { forbiddenMessage, type RbacAuthorizer, type RequestAttributes } from './rbac.js';

export type Impersonation = {
  readonly user?: string;
  readonly groups: readonly string[];
  readonly uid?: string;
  readonly extras: Readonly<Record<string, readonly string[]>>;
};

const EXTRA_PREFIX = 'impersonate-extra-';
const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;

/** The Impersonate-* headers of a request, or undefined when it impersonates nobody. */
export function impersonationOf(headers: IncomingHttpHeaders): Impersonation | undefined {
  const all = (name: string): string[] => {
    const value = headers[name];
    if (value === undefined) return [];
    return (Array.isArray(value) ? value : [value])
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter((v) => v !== '');
  };
  const [user] = all('impersonate-user');
  const [uid] = all('impersonate-uid');
  const groups = all('impersonate-group');
  const extras: Record<string, string[]> = {};
  for (const name of Object.keys(headers)) {
    if (name.startsWith(EXTRA_PREFIX)) extras[decodeURIComponent(name.slice(EXTRA_PREFIX.length))] = all(name);
  }
  if (user === undefined && uid === undefined && groups.length === 0 && Object.keys(extras).length === 0)
    return undefined;
  return { ...(user === undefined ? {} : { user }), groups, ...(uid === undefined ? {} : { uid }), extras };
}

const attributes = (resource: string, name: string, namespace = '', subresource = ''): RequestAttributes => ({
  verb: 'impersonate',
  isResourceRequest: true,
  path: '',
  apiGroup: resource === 'userextras' || resource === 'uids' ? 'authentication.k8s.io' : '',
  resource,
  subresource,
  namespace,
  name,
});

/**
 * The user a request impersonates, after checking that `caller` may impersonate each part of it
 * (403 otherwise). Without an authorizer every request is allowed, impersonation included.
 */
export function impersonate(caller: UserInfo, asked: Impersonation, rbac: RbacAuthorizer | undefined): UserInfo {
  if (asked.user === undefined) {
    throw badRequest(
      `requested ${[...asked.groups.map((g) => `group ${g}`), ...(asked.uid ? [`uid ${asked.uid}`] : [])].join(', ') || 'extras'} without impersonating a user`,
    );
  }
  const serviceAccount = SERVICE_ACCOUNT.exec(asked.user);
  const checks: RequestAttributes[] = [
    serviceAccount
      ? attributes('serviceaccounts', serviceAccount[2] ?? '', serviceAccount[1] ?? '')
      : attributes('users', asked.user),
    ...asked.groups.map((group) => attributes('groups', group)),
    ...(asked.uid === undefined ? [] : [attributes('uids', asked.uid)]),
    ...Object.entries(asked.extras).flatMap(([key, values]) =>
      values.map((value) => attributes('userextras', value, '', key)),
    ),
  ];
  for (const check of checks) {
    if (rbac !== undefined && !rbac.authorize(caller, check).allowed) {
      throw forbidden(forbiddenMessage(caller, check), { group: check.apiGroup, resource: check.resource }, check.name);
    }
  }
  let groups = [...asked.groups];
  if (serviceAccount && groups.length === 0)
    groups = ['system:serviceaccounts', `system:serviceaccounts:${serviceAccount[1] ?? ''}`];
  if (asked.user === 'system:anonymous') {
    if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
  } else if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) {
    groups.push('system:authenticated');
  }
  return { name: asked.user, groups };
}
