// `untouched` (scenario format v1.1): the Node exists and the reconciler changed nothing on it. A Node
// deleted and registered again by its kubelet exists, with the seeded labels and taints, but it is not
// the seeded object: the deletion is a change.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { cliOperator } from '../../cli/simulation-operator.js';

const NODE = 'ip-10-0-1-1.ec2.internal';

const loaded = {
  scenario: parseScenario(
    `
name: untouched-after-a-deletion
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: i-0a1b2c3d4e5f60001, state: running, zone: us-east-1a, launchedAgo: 2h, tags: { eks:cluster-name: demo } }
nodes:
  - { name: ${NODE}, providerID: "aws:///us-east-1a/i-0a1b2c3d4e5f60001", createdAgo: 2h }
steps:
  - advance: 1m
expect:
  nodes:
    ${NODE}: untouched
`,
    'untouched.yaml',
  ),
  baseDir: '.',
  file: 'untouched.yaml',
};

describe('expect untouched', () => {
  it('should hold for a Node nothing changed', async () => {
    const { simulation } = await simulate(loaded, { operator: cliOperator });

    expect(simulation.expectations?.failures).toEqual([]);
  });

  it('should fail for a Node deleted and registered again by its kubelet since it was seeded', async () => {
    const { simulation } = await simulate(loaded, {
      operator: cliOperator,
      prepare: (sandbox) => {
        const { store } = sandbox.kube;
        store.delete(store.resource('nodes'), undefined, NODE);
      },
    });

    expect(simulation.after.rows.map((r) => r.node)).toEqual([NODE]);
    expect(simulation.expectations?.failures).toEqual([
      `nodes.${NODE}: expected untouched, but changed: deleted (re-registered by its kubelet with a new uid)`,
    ]);
  });
});
