// Repair through the whole pipeline, against both emulators (docs/design.md §1b): the sweep reads the group's
// health, cordons, records and starts the repair drain, stands down with a RepairBlocked Event and a
// Node Repair Blocked output event, marks the machine Unhealthy once the drain has ended, cancels the
// repair of a node that recovered, and under dryRun plans all of it without a write.
import { describe, expect, it } from 'vitest';
import {
  DRAIN_ANNOTATION,
  DRAIN_FOR_ANNOTATION,
  DRAIN_OUTCOME_ANNOTATION,
  CORDONED_BY_ANNOTATION,
} from '@ec2-node-reconciler/model/contract/labels.js';
import { DEFAULT_SETTINGS, type Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import {
  actionsOf,
  ASG,
  awsWrites,
  drainExecutions,
  eventReasons,
  instanceId,
  kubeWrites,
  MINUTE,
  nodeName,
  outputEvents,
  RecordingDrainLauncher,
  silentKubelet,
  usePipelineWorld,
  type PipelineWorld,
} from '../support/pipeline-world.js';

let world: PipelineWorld;
usePipelineWorld((w) => (world = w));

const REPAIR: Partial<Settings> = { repair: { ...DEFAULT_SETTINGS.repair, enabled: true } };

/** `size` machines of the group with their Nodes; those in `silent` have a kubelet quiet for 40 minutes. */
function seedGroup(size: number, silent: readonly number[]): void {
  for (let n = 1; n <= size; n++) {
    world.seedInstance(n, { launchedAgo: '9h', autoScaling: { group: ASG } });
    if (silent.includes(n))
      world.seedNode(n, {
        ...silentKubelet(world, 40 * MINUTE),
        ready: 'Unknown',
        readySince: world.clock.now() - 40 * MINUTE,
      });
    else world.seedNode(n);
  }
}

const annotationsOf = (n: number) => world.kube.store.getNode(nodeName(n))?.metadata.annotations ?? {};

describe('repair through the pipeline', () => {
  it('should cordon, record and start the repair drain of one of ten machines unresponsive for 40 minutes, and say so', async () => {
    seedGroup(10, [4]);
    world.clearLogs();
    const report = await world.sweep({ settings: REPAIR });
    expect(actionsOf(report).filter((a) => !a.startsWith('report'))).toEqual([
      `cordon ${nodeName(4)} done`,
      `repair ${nodeName(4)} started`,
    ]);
    expect(report.actions.find((a) => a.kind === 'repair')?.step).toBe('drain');
    expect(annotationsOf(4)).toEqual(
      expect.objectContaining({ [DRAIN_FOR_ANNOTATION]: 'repair', [CORDONED_BY_ANNOTATION]: 'ec2-node-reconciler' }),
    );
    const [execution] = drainExecutions(world);
    expect(execution?.name).toBe(annotationsOf(4)[DRAIN_ANNOTATION]);
    expect(execution?.input).toEqual(
      expect.objectContaining({
        node: nodeName(4),
        instanceId: instanceId(4),
        deadline: new Date(world.clock.now() + 15 * MINUTE).toISOString(),
      }),
    );
    expect(eventReasons(world)).toEqual(
      expect.arrayContaining([`NodeCordoned ${nodeName(4)}`, `RepairStarted ${nodeName(4)}`]),
    );
    const started = outputEvents(world).find((e) => e.detailType === 'Node Repair Started');
    expect(started?.detail).toEqual(
      expect.objectContaining({
        node: nodeName(4),
        instanceId: instanceId(4),
        group: ASG,
        conditions: [
          { condition: 'Ready', status: 'Unknown', since: new Date(world.clock.now() - 40 * MINUTE).toISOString() },
        ],
      }),
    );
    expect(awsWrites(world)).not.toContain('autoscaling SetInstanceHealth');
  });

  it('should stand down when three of ten are unhealthy: nothing written but the RepairBlocked Events and Node Repair Blocked', async () => {
    seedGroup(10, [2, 5, 8]);
    world.clearLogs();
    const report = await world.sweep({ settings: REPAIR });
    expect(report.actions.filter((a) => a.kind !== 'report')).toEqual([]);
    expect(report.skipped.filter((s) => s.standDown !== undefined)).toHaveLength(3);
    expect(kubeWrites(world).filter((w) => w.startsWith('patch'))).toEqual([]);
    expect(eventReasons(world).filter((r) => r.startsWith('RepairBlocked'))).toEqual(
      [2, 5, 8].map((n) => `RepairBlocked ${nodeName(n)}`),
    );
    const blocked = outputEvents(world).filter((e) => e.detailType === 'Node Repair Blocked');
    expect(blocked.map((e) => e.detail['instanceId'])).toEqual([2, 5, 8].map((n) => instanceId(n)));
    for (const { detail } of blocked)
      expect(detail).toEqual(
        expect.objectContaining({ group: ASG, unhealthy: 3, members: 10, allowed: 2, maxUnhealthyPercent: 20 }),
      );
    expect(drainExecutions(world)).toEqual([]);
  });

  it('should mark the machine Unhealthy once its repair drain has ended, and publish Node Repaired', async () => {
    seedGroup(10, [4]);
    const drains = new RecordingDrainLauncher();
    await world.sweep({ settings: REPAIR, drains });
    // The drain ends (the workflow writes its outcome on the record).
    world.kube.store.patch(world.kube.store.resource('nodes'), undefined, nodeName(4), 'application/merge-patch+json', {
      metadata: { annotations: { [DRAIN_OUTCOME_ANNOTATION]: 'deadline' } },
    });
    world.clock.advance(16 * MINUTE);
    world.clearLogs();
    const report = await world.sweep({ settings: REPAIR, drains });
    expect(report.actions.filter((a) => a.kind === 'repair').map((a) => `${a.step} ${a.outcome}`)).toEqual([
      'replace done',
    ]);
    expect(awsWrites(world)).toContain('autoscaling SetInstanceHealth');
    expect(world.aws.state.autoScaling.member(instanceId(4))?.healthStatus).toBe('UNHEALTHY');
    expect(eventReasons(world)).toContain(`NodeRepaired ${nodeName(4)}`);
    expect(outputEvents(world).find((e) => e.detailType === 'Node Repaired')?.detail).toEqual(
      expect.objectContaining({ instanceId: instanceId(4), group: ASG, drainOutcome: 'deadline' }),
    );
    // The group is replacing it now: the next sweep sees it Unhealthy / terminating and does not mark it again.
    world.clearLogs();
    await world.sweep({ settings: REPAIR, drains });
    expect(awsWrites(world)).not.toContain('autoscaling SetInstanceHealth');
  });

  it('should cancel the repair of a node that is Ready again while its drain runs: uncordoned, record gone, RepairCancelled', async () => {
    seedGroup(10, [4]);
    const drains = new RecordingDrainLauncher();
    await world.sweep({ settings: REPAIR, drains });
    world.kube.store.kubelets.setHeartbeating(nodeName(4), true);
    const node = world.kube.store.getNode(nodeName(4));
    const conditions = (node?.status?.conditions ?? []).map((c) =>
      c.type === 'Ready' ? { ...c, status: 'True', lastTransitionTime: new Date(world.clock.now()).toISOString() } : c,
    );
    world.kube.store.patch(
      world.kube.store.resource('nodes'),
      undefined,
      nodeName(4),
      'application/merge-patch+json',
      { status: { conditions } },
      { subresource: 'status' },
    );
    world.clock.advance(MINUTE);
    world.clearLogs();
    const report = await world.sweep({ settings: REPAIR, drains });
    expect(
      report.actions.filter((a) => a.kind !== 'report').map((a) => `${a.kind} ${a.step ?? ''} ${a.outcome}`),
    ).toEqual(['repair cancel done']);
    const after = world.kube.store.getNode(nodeName(4));
    expect(after?.spec?.unschedulable).not.toBe(true);
    expect(after?.metadata.annotations?.[DRAIN_ANNOTATION]).toBeUndefined();
    expect(after?.metadata.annotations?.[CORDONED_BY_ANNOTATION]).toBeUndefined();
    expect(eventReasons(world)).toContain(`RepairCancelled ${nodeName(4)}`);
  });

  it('should plan the repair under dryRun and write nothing at all', async () => {
    seedGroup(10, [4]);
    world.clearLogs();
    const report = await world.sweep({ settings: { ...REPAIR, dryRun: true } });
    expect(actionsOf(report).filter((a) => !a.startsWith('report'))).toEqual([
      `cordon ${nodeName(4)} dry-run`,
      `repair ${nodeName(4)} dry-run`,
    ]);
    expect(kubeWrites(world)).toEqual([]);
    expect(awsWrites(world)).toEqual([]);
  });
});
