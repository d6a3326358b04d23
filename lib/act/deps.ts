import type { AutoScalingAdapter } from '../aws/autoscaling.js';
import type { DrainLauncher } from '../aws/drain-launcher.js';
import type { DrainApi } from '../drain/api.js';
import type { NodeClient } from '../kube/nodes.js';
import type { Clock } from '@ec2-node-reconciler/model/clock.js';

/** What acting needs: the writes a plan's actions make, the slice of each adapter it calls. */
export interface ActDeps {
  /** Names the cluster in the drains this stage starts. */
  readonly clusterName: string;
  readonly clock: Clock;
  /** The guarded delete (lib/kube/node-writes.ts deleteNode sends the preconditions the plan observed). */
  readonly nodes: Pick<NodeClient, 'deleteNode'>;
  /** The Node reads and patches of cordon, uncordon, the shutdown taint and drain claims (lib/kube/node-writes.ts), and the drain's pod calls. */
  readonly drainApi: DrainApi;
  readonly autoScaling: Pick<AutoScalingAdapter, 'completeLifecycleAction' | 'markUnhealthy' | 'recordRepairFailures'>;
  readonly drains: Pick<DrainLauncher, 'launch'>;
}
