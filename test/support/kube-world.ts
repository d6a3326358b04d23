// An emulated cluster in RBAC mode with the project's own manifest, and the reconciler's
// KubeClient for it: every integration test of the adapters runs with exactly the RBAC we ship.
import { rbacManifests, RECONCILER_GROUP } from '@ec2-node-reconciler/model/contract/rbac.js';
import { KubeClient } from '../../lib/kube/client.js';
import { bearerConnection } from '../../lib/kube/connection.js';
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { startKubeEmulator, type KubeEmulator } from '@ec2-node-reconciler/sandbox/kube/index.js';

export const RECONCILER_TOKEN = 'reconciler-token';

export async function startRbacCluster(clock: VirtualClock): Promise<{ kube: KubeEmulator; client: KubeClient }> {
  const kube = await startKubeEmulator({
    clock,
    uids: 'sequential',
    auth: { tokens: { [RECONCILER_TOKEN]: { user: 'ec2-node-reconciler', groups: [RECONCILER_GROUP] } } },
    rbac: rbacManifests(),
  });
  return { kube, client: new KubeClient(bearerConnection({ server: kube.url, token: RECONCILER_TOKEN })) };
}
