// The DRAINS rows of a simulation, read from the deployed drain workflow's executions.
import { describe, expect, it } from 'vitest';
import { formatSimulation } from '../../cli/format/simulation.js';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { cliOperator } from '../../cli/simulation-operator.js';

describe('the DRAINS rows of a simulation', () => {
  it('should count pods evicted and still terminating as evicted, not left, and name every shortened grace period', async () => {
    const scenario = (gracePeriod: string) =>
      parseScenario(
        `
name: grace-${gracePeriod}
start: 2026-11-29T12:00:00Z
cluster: { name: demo, region: eu-west-1, accountId: "111122223333" }
settings: { gracePeriod: ${gracePeriod}, drainTimeout: 2m }
instances:
  - { id: i-0ee0000000000e101, state: running, zone: eu-west-1a, launchedAgo: 9d, tags: { eks:cluster-name: demo, ec2-node-reconciler/decommission: "true" } }
nodes:
  - { name: ip-10-70-1-1.eu-west-1.compute.internal, providerID: "aws:///eu-west-1a/i-0ee0000000000e101", createdAgo: 9d }
pods:
  - { name: api-1, node: ip-10-70-1-1.eu-west-1.compute.internal, owner: ReplicaSet/api-7d9, terminationGracePeriodSeconds: 300 }
  - { name: api-2, node: ip-10-70-1-1.eu-west-1.compute.internal, owner: ReplicaSet/api-7d9, terminationGracePeriodSeconds: 300 }
steps:
  - sweep: {}
  - settle: {}
expect:
  deletions: 0
`,
        'grace.yaml',
      );

    const own = (
      await simulate({ scenario: scenario('pod'), baseDir: '.', file: 'grace-pod.yaml' }, { operator: cliOperator })
    ).simulation;
    const fitted = (
      await simulate(
        { scenario: scenario('fit-deadline'), baseDir: '.', file: 'grace-fit.yaml' },
        { operator: cliOperator },
      )
    ).simulation;

    expect(own.drains).toEqual([
      expect.objectContaining({ status: 'deadline', evicted: 2, terminating: 2, left: 0, graceShortened: [] }),
    ]);
    expect(formatSimulation(own)).toMatch(/deadline .* 2 evicted \(2 terminating\), 0 left/);
    // 120 s less the 5 s margin, less the second the first drain step waits for its Node's offset
    // (drains a storm starts together evict apart: checkOffsetMs).
    expect(fitted.drains).toEqual([
      expect.objectContaining({
        status: 'drained',
        evicted: 2,
        left: 0,
        graceShortened: ['default/api-1 300s→114s', 'default/api-2 300s→114s'],
      }),
    ]);
    expect(formatSimulation(fitted)).toMatch(/grace shortened: default\/api-1 300s→114s, default\/api-2 300s→114s/);
  });
});
