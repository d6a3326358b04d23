// `denied` (scenario format v1.1): calls refused by the deployed IAM policies or the shipped RBAC. A
// 403 the scenario injected as a fault is the fault's, not RBAC's.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { cliOperator } from '../../cli/simulation-operator.js';

const NODE = 'ip-10-0-1-1.ec2.internal';

describe('expect denied', () => {
  it('should not count a 403 the scenario injected', async () => {
    const loaded = {
      scenario: parseScenario(
        `
name: injected-forbidden
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: i-0a1b2c3d4e5f60001, state: running, zone: us-east-1a, launchedAgo: 2h, tags: { eks:cluster-name: demo } }
nodes:
  - { name: ${NODE}, providerID: "aws:///us-east-1a/i-0a1b2c3d4e5f60001", createdAgo: 2h }
faults:
  - { api: "kube:PATCH /api/v1/nodes/*", status: 403, times: 1 }
steps:
  - drain: { node: ${NODE}, reason: test }
expect:
  denied: 0
`,
        'denied.yaml',
      ),
      baseDir: '.',
      file: 'denied.yaml',
    };
    const { simulation, sandbox } = await simulate(loaded, { operator: cliOperator, keepOpen: true });
    try {
      const forbidden = sandbox.kube.requestLog.entries.filter((e) => e.status === 403);
      expect(forbidden.map((e) => [e.method, e.injected])).toEqual([['PATCH', true]]);
      expect(simulation.denied).toEqual([]);
      // The operator's drain met the refusal, as kubectl would: it failed, and the scenario went on.
      const [drain] = simulation.steps;
      expect(drain).toMatchObject({ kind: 'drain', status: 'failed' });
      expect(drain?.kind === 'drain' ? drain.message : undefined).toMatch(/403/);
      expect(simulation.expectations?.failures).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});
