// The operator's `cordon` and `uncordon` steps are kubectl's: on a Node that no longer exists, the API
// refuses them and kubectl says so; the scenario goes on (it does not end the run with an error).
import { describe, expect, it } from 'vitest';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { cliOperator } from '../../cli/simulation-operator.js';
import { formatSimulation } from '../../cli/format/simulation.js';

const NODE = 'ip-10-0-1-1.ec2.internal';

const loaded = {
  scenario: parseScenario(
    `
name: cordon-a-deleted-node
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: i-0a1b2c3d4e5f60001, state: terminated, zone: us-east-1a, launchedAgo: 2h, tags: { eks:cluster-name: demo } }
nodes:
  - { name: ${NODE}, providerID: "aws:///us-east-1a/i-0a1b2c3d4e5f60001", createdAgo: 2h, ready: "Unknown", heartbeatAgo: 30m }
steps:
  - cordon: ${NODE}
  - uncordon: ${NODE}
  - sweep: {}
`,
    'cordon.yaml',
  ),
  baseDir: '.',
  file: 'cordon.yaml',
};

describe('the cordon and uncordon steps', () => {
  it('should record what kubectl says when the Node is gone, and go on', async () => {
    const { simulation } = await simulate(loaded, {
      operator: cliOperator,
      prepare: (sandbox) => {
        const { store } = sandbox.kube;
        store.delete(store.resource('nodes'), undefined, NODE);
      },
    });

    expect(simulation.steps.map((s) => s.kind)).toEqual(['cordon', 'uncordon', 'sweep']);
    for (const step of simulation.steps.slice(0, 2))
      expect(step).toMatchObject({ node: NODE, failed: `Error from server (NotFound): nodes "${NODE}" not found` });
    expect(formatSimulation(simulation)).toContain('kubectl cordon → FAILED');
  });
});
