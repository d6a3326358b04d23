import { CoordinationV1Api, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import type { LeaseView } from '../model/observation.js';
import { httpStatus } from './errors.js';
import { LIST_PAGE } from './nodes.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

function toLeaseView(lease: V1Lease): LeaseView | undefined {
  const name = lease.metadata?.name;
  if (!name) return undefined;
  // Typed as Date, but arrives as a string at runtime (NOTES.md): accept both.
  const raw: unknown = lease.spec?.renewTime;
  const renewTime = raw instanceof Date ? raw.getTime() : typeof raw === 'string' ? Date.parse(raw) : undefined;
  return { nodeName: name, ...(renewTime !== undefined && !Number.isNaN(renewTime) ? { renewTime } : {}) };
}

/** Node heartbeats: kube-node-lease/<node name>. */
export class LeaseClient {
  private readonly coordination: CoordinationV1Api;

  constructor(kc: KubeConfig) {
    this.coordination = kc.makeApiClient(CoordinationV1Api);
  }

  async listLeases(): Promise<Map<string, LeaseView>> {
    const out = new Map<string, LeaseView>();
    let token: string | undefined;
    do {
      const page = await this.coordination.listNamespacedLease({ namespace: NODE_LEASE_NAMESPACE, limit: LIST_PAGE, ...(token ? { _continue: token } : {}) });
      for (const lease of page.items) {
        const view = toLeaseView(lease);
        if (view) out.set(view.nodeName, view);
      }
      token = page.metadata?._continue || undefined;
    } while (token);
    return out;
  }

  async getLease(nodeName: string): Promise<LeaseView | undefined> {
    try {
      return toLeaseView(await this.coordination.readNamespacedLease({ name: nodeName, namespace: NODE_LEASE_NAMESPACE }));
    } catch (error) {
      if (httpStatus(error) === 404) return undefined;
      throw error;
    }
  }
}
