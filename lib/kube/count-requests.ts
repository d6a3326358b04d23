import type { ApiCallCounter } from '../support/api-calls.js';
import type { KubeMethod } from './client.js';

/** `/api/v1/namespaces/x/pods/y/eviction` → `pods/eviction`; `/apis/coordination.k8s.io/v1/namespaces/n/leases` → `leases`. */
export function resourceOfPath(path: string): string {
  const parts = path.split('?')[0]?.split('/').filter(Boolean) ?? [];
  // Drop the API prefix: api/v1 or apis/<group>/<version>.
  const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : parts;
  const withoutNamespace = rest[0] === 'namespaces' && rest.length > 2 ? rest.slice(2) : rest;
  const [resource, , subresource] = withoutNamespace;
  return subresource ? `${resource ?? ''}/${subresource}` : (resource ?? path);
}

/** A KubeClient `onRequest` hook that counts each request as `kube <METHOD> <resource>`. */
export function countKubeRequests(counter: ApiCallCounter): (method: KubeMethod, path: string) => void {
  return (method, path) => counter.add(`kube ${method} ${resourceOfPath(path)}`);
}
