// The Kubernetes Events of whole scenarios, read from the sandbox's API server as `kubectl describe
// node` would: what the deployed stack (the synthesized drain workflow and the bundled functions,
// under the shipped RBAC) tells each Node, and that a repeat is counted, not added.
import { describe, expect, it } from 'vitest';
import { loadScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { cliOperator } from '../../cli/simulation-operator.js';
import type { Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';

const scenario = (name: string) => new URL(`../scenarios/${name}.yaml`, import.meta.url).pathname;

interface DescribedEvent {
  readonly node: string;
  readonly reason: string;
  readonly type: string;
  readonly count: unknown;
  readonly message: string;
}

/** Every Event on a Node, as `kubectl get events` lists them. */
const nodeEvents = (sandbox: Sandbox): DescribedEvent[] =>
  sandbox.kube.store.list(sandbox.kube.store.resource('events', ''), { namespace: 'default' }).items.map((e) => {
    const involved = e['involvedObject'] as { name?: string } | undefined;
    return {
      node: involved?.name ?? '',
      reason: String(e['reason']),
      type: String(e['type']),
      count: e['count'],
      message: String(e['message']),
    };
  });

async function run(name: string): Promise<{ sandbox: Sandbox; failures: readonly string[] }> {
  const { simulation, sandbox } = await simulate(await loadScenario(scenario(name)), {
    operator: cliOperator,
    keepOpen: true,
  });
  return { sandbox, failures: [...(simulation.expectations?.failures ?? []), ...simulation.denied.map((d) => d.call)] };
}

describe('Kubernetes Events of the deployed stack', () => {
  it('should tell the Node that the drain workflow completed its lifecycle action (LifecycleActionCompleted)', async () => {
    const { sandbox, failures } = await run('asg-lifecycle-action-drains-and-continues');
    try {
      expect(failures).toEqual([]);
      const drained = nodeEvents(sandbox).filter((e) => e.node === 'ip-10-30-8-81.eu-west-1.compute.internal');
      expect(drained.map((e) => `${e.reason} ${e.type} x${String(e.count)}`).sort()).toEqual([
        'DrainStarted Normal x1',
        'LifecycleActionCompleted Normal x1',
        'NodeCordoned Normal x1',
      ]);
      expect(drained.find((e) => e.reason === 'LifecycleActionCompleted')?.message).toBe(
        'completed lifecycle action eks-ng-general/ec2-node-reconciler-drain of i-0bb0000000000e101 with CONTINUE: its drain ended done',
      );
      // The Node the workflow did not drain is told nothing.
      expect(nodeEvents(sandbox).filter((e) => e.node === 'ip-10-30-8-82.eu-west-1.compute.internal')).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('should tell a drained Node of its drain once, and of the lifecycle action completed when the reclaim came', async () => {
    const { sandbox, failures } = await run('drained-removal-not-drained-again');
    try {
      expect(failures).toEqual([]);
      const told = nodeEvents(sandbox).filter((e) => e.node === 'ip-10-30-9-1.eu-west-1.compute.internal');
      expect(told.map((e) => `${e.reason} ${e.type} x${String(e.count)}`).sort()).toEqual([
        'DrainStarted Normal x1',
        'LifecycleActionCompleted Normal x1',
        'NodeCordoned Normal x1',
      ]);
      expect(told.find((e) => e.reason === 'LifecycleActionCompleted')?.message).toMatch(
        // drainExecutionName: a readable prefix cut to fit, then 16 hex digits of a hash over (cluster,
        // instance, cause, Node uid); the uid is the sandbox's, so the hash is read, not spelled.
        /terminating i-0bb0000000000f101.*; its drain demo-i-0bb0000000000f101-5b0d4a2e-1c9f-4e7a-9d1b-3f2e8c7a-[0-9a-f]{16} has ended$/,
      );
    } finally {
      await sandbox.close();
    }
  });

  it('should tell nothing of a lifecycle action the drain left open for the operator', async () => {
    const { sandbox, failures } = await run('operator-uncordon-cancels-drain');
    try {
      expect(failures).toEqual([]);
      expect(nodeEvents(sandbox).map((e) => e.reason)).not.toContain('LifecycleActionCompleted');
    } finally {
      await sandbox.close();
    }
  });

  it('should count a divergence every sweep reports on one Event per Node, with the latest message', async () => {
    const { sandbox, failures } = await run('unresponsive-machine-reported-never-deleted');
    try {
      expect(failures).toEqual([]);
      const reported = nodeEvents(sandbox).filter((e) => e.reason === 'UnresponsiveMachine');
      expect(reported.map((e) => [e.node, e.type, e.count]).sort()).toEqual([
        ['ip-10-20-1-41.eu-west-1.compute.internal', 'Warning', 2],
        ['ip-10-20-2-42.eu-west-1.compute.internal', 'Warning', 2],
      ]);
      // The second sweep's message, 30 minutes on.
      expect(reported.find((e) => e.node === 'ip-10-20-1-41.eu-west-1.compute.internal')?.message).toMatch(
        /last heartbeat 90m ago/,
      );
    } finally {
      await sandbox.close();
    }
  });
});
