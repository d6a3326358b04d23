// What the repair scenarios of test/scenarios cannot state in `expect`: the dry run plans the repair it
// does not carry out; the stand-down tells every Node (RepairBlocked) and downstream (Node Repair
// Blocked); a repair cancelled by recovery leaves nothing of the reconciler's on the Node; and the
// oracle of `expect.repairs` fails a scenario that claims a repair that did not happen.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LABEL_PREFIX } from '@ec2-node-reconciler/model/contract/labels.js';
import { loadScenario, parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import type { Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';
import { cliOperator } from '../../cli/simulation-operator.js';
import type { RunReport } from '../../lib/report/report.js';
import type { Simulation } from '@ec2-node-reconciler/sandbox/simulate/run.js';

const scenario = (name: string) => fileURLToPath(new URL(`../scenarios/${name}.yaml`, import.meta.url));

async function run(name: string): Promise<{ simulation: Simulation<RunReport>; sandbox: Sandbox }> {
  return simulate(await loadScenario(scenario(name)), { operator: cliOperator, keepOpen: true });
}

/** What the reconciler published on its own bus (the stack's one event bus). */
const outputEvents = (sandbox: Sandbox) =>
  sandbox.stack.deployment.eventBuses.flatMap((bus) => sandbox.aws.state.eventBus.on(bus.name));

const nodeEvents = (sandbox: Sandbox) =>
  sandbox.kube.store
    .list(sandbox.kube.store.resource('events', ''), { namespace: 'default' })
    .items.map((e) => `${String(e['reason'])} ${String((e['involvedObject'] as { name?: string } | undefined)?.name)}`)
    .sort();

describe('repair scenarios, beyond their expectations', () => {
  it('should plan the repair in a dry run (cordon and repair drain, both dry-run) and record no Event', async () => {
    const { simulation, sandbox } = await run('repair-dry-run-plans-only');
    try {
      const sweep = simulation.steps.find((s) => s.kind === 'sweep');
      const planned =
        sweep?.kind === 'sweep' && sweep.report
          ? sweep.report.actions
              .filter((a) => a.kind !== 'report')
              .map((a) => `${a.kind}${a.step ? ` ${a.step}` : ''} ${a.outcome}`)
          : [];
      expect(planned).toEqual(['cordon dry-run', 'repair drain dry-run']);
      expect(nodeEvents(sandbox)).toEqual([]);
      expect(outputEvents(sandbox)).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('should tell each of the three Nodes and downstream why their repair stood down, on every sweep', async () => {
    const { sandbox } = await run('repair-stand-down-three-of-ten');
    try {
      const blocked = nodeEvents(sandbox).filter((e) => e.startsWith('RepairBlocked'));
      expect(new Set(blocked).size).toBe(3);
      // One Event a Node, counted again by the second sweep (as the kubelet counts its repeats).
      const counts = sandbox.kube.store
        .list(sandbox.kube.store.resource('events', ''), { namespace: 'default' })
        .items.filter((e) => e['reason'] === 'RepairBlocked')
        .map((e) => e['count']);
      expect(counts).toEqual([2, 2, 2]);
      const published = outputEvents(sandbox).filter((e) => e.detailType === 'Node Repair Blocked');
      expect(published).toHaveLength(6);
      expect(published[0]?.detail).toEqual(
        expect.objectContaining({
          group: 'eks-ng-general',
          unhealthy: 3,
          members: 10,
          allowed: 2,
          maxUnhealthyPercent: 20,
        }),
      );
    } finally {
      await sandbox.close();
    }
  });

  it('should leave no annotation of the reconciler on a Node whose repair recovery cancelled, and publish the repair start', async () => {
    const { sandbox } = await run('repair-recovered-mid-drain-uncordoned');
    try {
      const node = sandbox.kube.store.getNode('ip-10-72-0-6.eu-west-1.compute.internal');
      expect(Object.keys(node?.metadata.annotations ?? {}).filter((k) => k.startsWith(`${LABEL_PREFIX}/`))).toEqual([]);
      expect(nodeEvents(sandbox)).toEqual(
        expect.arrayContaining([
          'RepairStarted ip-10-72-0-6.eu-west-1.compute.internal',
          'RepairCancelled ip-10-72-0-6.eu-west-1.compute.internal',
        ]),
      );
      const detailTypes = outputEvents(sandbox).map((e) => e.detailType);
      expect(detailTypes).toContain('Node Repair Started');
      expect(detailTypes).not.toContain('Node Repaired');
    } finally {
      await sandbox.close();
    }
  });

  it('should take no machine out of a group whose Launch is suspended (it would not be replaced): no cordon, no drain, no SetInstanceHealth, and the report says why', async () => {
    const { simulation, sandbox } = await simulate(
      await loadScenario(scenario('repair-one-of-ten-unresponsive-replaced')),
      {
        operator: cliOperator,
        keepOpen: true,
        prepare: (world) => world.aws.state.autoScaling.suspend('eks-ng-general', ['Launch'], world.clock.now()),
      },
    );
    try {
      const silent = sandbox.kube.store.getNode('ip-10-70-0-4.eu-west-1.compute.internal');
      expect(silent?.spec?.unschedulable).not.toBe(true);
      expect(sandbox.aws.state.autoScaling.healthChanges).toEqual([]);
      expect(simulation.drains).toEqual([]);
      const skipped = simulation.steps
        .flatMap((s) => (s.kind === 'sweep' && s.report ? s.report.skipped : []))
        .filter((s) => s.kind === 'repair');
      expect(skipped.length).toBeGreaterThan(0);
      expect(new Set(skipped.map((s) => s.reason))).toEqual(
        new Set([
          'Auto Scaling group eks-ng-general has Launch suspended: it would not replace a machine marked Unhealthy, so none is taken out until it is resumed',
        ]),
      );
      expect(simulation.expectations?.failures).toContainEqual(
        expect.stringMatching(/^repairs: expected \[i-0c10000000000a004\], got \[\]/),
      );
    } finally {
      await sandbox.close();
    }
  });

  it('should fail expect.repairs when the machine named was not repaired, and when one was that is not named', async () => {
    const text = `
name: repairs-oracle
start: 2026-11-29T12:00:00Z
cluster: { name: demo, region: eu-west-1, accountId: "111122223333" }
instances:
  - { id: i-0cb0000000000a001, zone: eu-west-1a, tags: { eks:cluster-name: demo }, autoScaling: { group: ng } }
nodes:
  - { name: n1, providerID: "aws:///eu-west-1a/i-0cb0000000000a001", createdAgo: 9d, ready: "Unknown", heartbeatAgo: 40m, heartbeating: false }
steps: [ { sweep: {} } ]
expect:
  repairs: [ { instance: i-0cb0000000000a001, action: replace } ]
`;
    const load = (repairOn: boolean, wanted: string) =>
      parseScenario(
        text
          .replace(
            'steps: [ { sweep: {} } ]',
            repairOn
              ? 'settings: { repair: { enabled: true } }\nsteps: [ { sweep: {} }, { settle: {} }, { sweep: {} } ]'
              : 'steps: [ { sweep: {} } ]',
          )
          .replace('repairs: [ { instance: i-0cb0000000000a001, action: replace } ]', wanted),
        'oracle.yaml',
      );
    const failures = async (repairOn: boolean, wanted: string) =>
      (
        await simulate(
          { scenario: load(repairOn, wanted), baseDir: '.', file: 'oracle.yaml' },
          { operator: cliOperator },
        )
      ).simulation.expectations?.failures;
    const named = 'repairs: [ { instance: i-0cb0000000000a001, action: replace } ]';
    expect(await failures(false, named)).toEqual(['repairs: expected [i-0cb0000000000a001], got [] marked Unhealthy']);
    expect(await failures(true, 'repairs: []')).toEqual([
      'repairs: expected [], got [i-0cb0000000000a001] marked Unhealthy',
    ]);
    expect(await failures(true, named)).toEqual([]);
    expect(await failures(false, 'repairs: []')).toEqual([]);
  });
});
