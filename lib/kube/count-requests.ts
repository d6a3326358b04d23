import type { KubeConfig, RequestContext } from '@kubernetes/client-node';
import type { ApiCallCounter } from '../pipeline/api-calls.js';

/** `/api/v1/namespaces/x/pods/y/eviction` → `pods/eviction`; `/apis/coordination.k8s.io/v1/namespaces/n/leases` → `leases`. */
export function resourceOfPath(path: string): string {
  const parts = path.split('?')[0]?.split('/').filter(Boolean) ?? [];
  // Drop the API prefix: api/v1 or apis/<group>/<version>.
  const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : parts;
  const withoutNamespace = rest[0] === 'namespaces' && rest.length > 2 ? rest.slice(2) : rest;
  const [resource, , subresource] = withoutNamespace;
  return subresource ? `${resource ?? ''}/${subresource}` : (resource ?? path);
}

/**
 * Counts every request made through this KubeConfig: client-node calls
 * applySecurityAuthentication once per HTTP request, so wrapping it sees them all.
 */
export function countKubeRequests(kc: KubeConfig, counter: ApiCallCounter): KubeConfig {
  const original = kc.applySecurityAuthentication.bind(kc);
  kc.applySecurityAuthentication = async (context: RequestContext): Promise<void> => {
    const url = new URL(context.getUrl());
    counter.add(`kube ${context.getHttpMethod()} ${resourceOfPath(url.pathname)}`);
    await original(context);
  };
  return kc;
}
