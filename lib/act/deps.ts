import type { AutoScalingAdapter } from '../aws/autoscaling.js';
import type { DrainLauncher } from '../aws/drain-launcher.js';
import type { DrainApi } from '../drain/api.js';
import type { NodeClient } from '../kube/nodes.js';
import type { Clock } from '../model/clock.js';

/** What acting needs: the writes a plan's actions make, the slice of each adapter it calls. */
export interface ActDeps {
  /** Names the cluster in the drains this stage starts. */
  readonly clusterName: string;
  readonly clock: Clock;
  readonly nodes: Pick<NodeClient, 'deleteNode' | 'setShutdownTaint'>;
  /** Cordon, uncordon and drain claims go through the drain engine's guarded implementation. */
  readonly drainApi: DrainApi;
  readonly autoScaling: Pick<AutoScalingAdapter, 'completeLifecycleAction' | 'markUnhealthy'>;
  readonly drains: Pick<DrainLauncher, 'launch'>;
}
