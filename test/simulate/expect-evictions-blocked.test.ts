// `evictionsBlocked` (scenario format): evictions the API refused with 429 because of a disruption
// budget. A 429 the scenario injected as a fault is the fault's, not a budget's.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { cliOperator } from '../../cli/simulation-operator.js';

const NODE = 'ip-10-0-1-1.ec2.internal';

const scenario = (minAvailable: number, faults: string, expectBlocked: number) => ({
  scenario: parseScenario(
    `
name: evictions-blocked
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: i-0a1b2c3d4e5f60001, state: running, zone: us-east-1a, launchedAgo: 2h, tags: { eks:cluster-name: demo } }
  - { id: i-0a1b2c3d4e5f60002, state: running, zone: us-east-1a, launchedAgo: 2h, tags: { eks:cluster-name: demo } }
nodes:
  - { name: ${NODE}, providerID: "aws:///us-east-1a/i-0a1b2c3d4e5f60001", createdAgo: 2h }
  - { name: ip-10-0-1-2.ec2.internal, providerID: "aws:///us-east-1a/i-0a1b2c3d4e5f60002", createdAgo: 2h }
pods:
  - { name: web-1, namespace: default, node: ${NODE}, labels: { app: web }, owner: ReplicaSet/web-6d4f }
  - { name: web-2, namespace: default, node: ip-10-0-1-2.ec2.internal, labels: { app: web }, owner: ReplicaSet/web-6d4f }
pdbs:
  - { name: web, namespace: default, selector: { app: web }, minAvailable: ${minAvailable} }
${faults}
steps:
  - drain: { node: ${NODE}, reason: test }
expect:
  evictionsBlocked: ${expectBlocked}
`,
    'evictions.yaml',
  ),
  baseDir: '.',
  file: 'evictions.yaml',
});

const run = async (minAvailable: number, faults: string, expectBlocked: number) => {
  const { simulation, sandbox } = await simulate(scenario(minAvailable, faults, expectBlocked), {
    operator: cliOperator,
    keepOpen: true,
  });
  try {
    const refused = sandbox.kube.requestLog.filter({ resource: 'pods', subresource: 'eviction', status: 429 });
    return { refused, failures: simulation.expectations?.failures };
  } finally {
    await sandbox.close();
  }
};

describe('expect evictionsBlocked', () => {
  it("should count a budget's refusals", async () => {
    // minAvailable 2 of 2: every eviction of the drain is refused until its deadline.
    const { refused, failures } = await run(2, '', 0);
    expect(refused.length).toBeGreaterThan(0);
    expect(failures).toEqual([`evictionsBlocked: expected 0, got ${refused.length}`]);
  });

  it('should not count a 429 the scenario injected', async () => {
    const { refused, failures } = await run(
      1,
      `faults:\n  - { api: "kube:POST /api/v1/namespaces/*/pods/*/eviction", status: 429, times: 1 }`,
      0,
    );
    expect(refused.map((e) => e.injected)).toEqual([true]);
    expect(failures).toEqual([]);
  });
});
