// Scenarios seed the conditions a repair reads (Ready's lastTransitionTime, the node monitoring
// agent's conditions) and change them mid-run with a `condition` step; the reconciler's projection
// reads them back from the Kubernetes emulator.
import { describe, expect, it } from 'vitest';
import { toNodeView } from '../../lib/kube/node-view.js';
import { NodeSchema } from '../../lib/kube/schemas.js';
import { parseScenario, ScenarioError } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { startSandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';
import { cliOperator } from '../../cli/simulation-operator.js';

const START = Date.parse('2026-11-29T12:00:00Z');
const MINUTE = 60_000;

const BASE = `
name: node-conditions
start: 2026-11-29T12:00:00Z
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: i-0a0000000000c0001, zone: us-east-1a, tags: { eks:cluster-name: demo } }
  - { id: i-0a0000000000c0002, zone: us-east-1a, tags: { eks:cluster-name: demo } }
  - { id: i-0a0000000000c0003, zone: us-east-1a, tags: { eks:cluster-name: demo } }
nodes:
  - { name: agent, providerID: "aws:///us-east-1a/i-0a0000000000c0001", createdAgo: 2h, conditions: { KernelReady: { status: "False", since: 35m }, AcceleratedHardwareReady: { status: "True", since: 2h } } }
  - { name: silent, providerID: "aws:///us-east-1a/i-0a0000000000c0002", createdAgo: 2h, ready: "Unknown", heartbeatAgo: 40m, heartbeating: false }
  - { name: notready, providerID: "aws:///us-east-1a/i-0a0000000000c0003", createdAgo: 2h, conditions: { Ready: { status: "False", since: 45m } } }
`;

async function viewsOf(text: string) {
  const sandbox = await startSandbox(parseScenario(text, 'test.yaml'));
  try {
    return new Map(sandbox.kube.store.listNodes().map((n) => [n.metadata.name ?? '', toNodeView(NodeSchema.parse(n))]));
  } finally {
    await sandbox.close();
  }
}

describe('scenario node conditions', () => {
  it('should seed the monitoring agent conditions with their lastTransitionTime', async () => {
    const views = await viewsOf(BASE);
    expect(views.get('agent')?.conditions).toEqual({
      Ready: { status: 'True', since: START - 2 * 60 * MINUTE },
      KernelReady: { status: 'False', since: START - 35 * MINUTE },
      AcceleratedHardwareReady: { status: 'True', since: START - 2 * 60 * MINUTE },
    });
  });

  it("should date a Ready that is not True from the kubelet's last heartbeat, as the format says", async () => {
    const views = await viewsOf(BASE);
    expect(views.get('silent')?.conditions?.Ready).toEqual({ status: 'Unknown', since: START - 40 * MINUTE });
  });

  it('should take Ready from conditions with its own age (a NotReady node whose kubelet is alive)', async () => {
    const views = await viewsOf(BASE);
    expect(views.get('notready')?.ready).toBe('False');
    expect(views.get('notready')?.conditions?.Ready).toEqual({ status: 'False', since: START - 45 * MINUTE });
  });

  it('should refuse an unknown condition and Ready given twice, naming the field', () => {
    const problems = (text: string): readonly string[] => {
      try {
        parseScenario(text, 'bad.yaml');
      } catch (error) {
        if (error instanceof ScenarioError) return error.problems;
        throw error;
      }
      return [];
    };
    expect(problems(BASE.replace('KernelReady: {', 'KernelOk: {'))).toContainEqual(
      expect.stringContaining('nodes[0].conditions.KernelOk: unknown key'),
    );
    expect(
      problems(
        BASE.replace('createdAgo: 2h, conditions: { Ready:', 'createdAgo: 2h, ready: "False", conditions: { Ready:'),
      ),
    ).toContainEqual(
      expect.stringContaining(
        'nodes[2].conditions.Ready: set Ready either with ready (and heartbeatAgo) or here, not both',
      ),
    );
  });

  it('should let a condition step post a condition now: Ready True brings the kubelet back, a monitoring agent condition changes alone', async () => {
    const text = `${BASE}
steps:
  - advance: 5m
  - condition: { node: silent, type: Ready, status: "True" }
  - condition: { node: agent, type: KernelReady, status: "True" }
  - advance: 1m
  - sweep: {}
expect:
  conditions: { in-sync: 2, unresponsive-machine: 1 }
`;
    const { simulation, sandbox } = await simulate(
      { scenario: parseScenario(text, 'step.yaml'), baseDir: '.', file: 'step.yaml' },
      { operator: cliOperator, keepOpen: true },
    );
    try {
      expect(simulation.expectations?.failures).toEqual([]);
      const silent = toNodeView(NodeSchema.parse(sandbox.kube.store.getNode('silent')));
      expect(silent?.conditions?.Ready).toEqual({ status: 'True', since: START + 5 * MINUTE });
      const agent = toNodeView(NodeSchema.parse(sandbox.kube.store.getNode('agent')));
      expect(agent?.conditions?.KernelReady).toEqual({ status: 'True', since: START + 5 * MINUTE });
    } finally {
      await sandbox.close();
    }
  });

  it('should refuse a condition step about a node the scenario does not have', () => {
    expect(() =>
      parseScenario(`${BASE}\nsteps: [ { condition: { node: nobody, type: Ready, status: "True" } } ]\n`, 'bad.yaml'),
    ).toThrow(/steps\[0\]\.condition\.node: no node named nobody/);
  });
});
