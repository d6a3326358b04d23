// An emulated cluster in RBAC mode with the project's own manifest, and the reconciler's
// KubeConfig for it: every integration test of the adapters runs with exactly the RBAC we ship.
import { rbacManifests, RECONCILER_GROUP } from '../../infra/rbac.js';
import { kubeConfigFor } from '../../lib/kube/config.js';
import type { VirtualClock } from '../../lib/model/clock.js';
import { startKubeEmulator, type KubeEmulator } from '../../lib/sandbox/kube/index.js';
import type { KubeConfig } from '@kubernetes/client-node';

export const RECONCILER_TOKEN = 'reconciler-token';

export async function startRbacCluster(clock: VirtualClock): Promise<{ kube: KubeEmulator; kc: KubeConfig }> {
  const kube = await startKubeEmulator({
    clock,
    uids: 'sequential',
    auth: { tokens: { [RECONCILER_TOKEN]: { user: 'ec2-node-reconciler', groups: [RECONCILER_GROUP] } } },
    rbac: rbacManifests(),
  });
  return { kube, kc: kubeConfigFor({ server: kube.url, token: RECONCILER_TOKEN }) };
}
