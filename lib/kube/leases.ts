import type { LeaseView } from '@ec2-node-reconciler/model/observation.js';
import { httpStatus, kubePath, type KubeClient } from './client.js';
import { listPages } from './list.js';
import { epochOf } from './node-view.js';
import { LeaseSchema, type KubeLease } from './schemas.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const LEASES = `apis/coordination.k8s.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases`;

function toLeaseView(lease: KubeLease): LeaseView | undefined {
  const name = lease.metadata.name;
  if (!name) return undefined;
  const renewTime = epochOf(lease.spec.renewTime);
  return { nodeName: name, ...(renewTime !== undefined ? { renewTime } : {}) };
}

/** Node heartbeats: kube-node-lease/<node name>. */
export class LeaseClient {
  constructor(private readonly kube: KubeClient) {}

  async listLeases(): Promise<Map<string, LeaseView>> {
    const out = new Map<string, LeaseView>();
    await listPages(this.kube, LEASES, LeaseSchema, (page) => {
      for (const lease of page.items) {
        const view = toLeaseView(lease);
        if (view) out.set(view.nodeName, view);
      }
    });
    return out;
  }

  async getLease(nodeName: string): Promise<LeaseView | undefined> {
    try {
      return toLeaseView(await this.kube.call({ method: 'GET', path: kubePath(LEASES, nodeName) }, LeaseSchema));
    } catch (error) {
      if (httpStatus(error) === 404) return undefined;
      throw error;
    }
  }
}
