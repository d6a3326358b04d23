// The BEFORE and AFTER pictures of a simulation are the operator's dry-run sweeps, not the world's
// calls: the scenario's faults are meant for the deployed system, and must meet its calls whole.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import type { StepRecord } from '@ec2-node-reconciler/sandbox/simulate/records.js';
import { cliOperator } from '../../cli/simulation-operator.js';
import type { RunReport } from '../../lib/report/report.js';

const scenarioWith = (faults: string, steps = '  - sweep: {}') => ({
  scenario: parseScenario(
    `
name: faults-meet-the-sweep
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: i-0a1b2c3d4e5f60001, state: running, zone: us-east-1a, launchedAgo: 2h, tags: { eks:cluster-name: demo } }
nodes:
  - { name: ip-10-0-1-1.ec2.internal, providerID: "aws:///us-east-1a/i-0a1b2c3d4e5f60001", createdAgo: 2h }
faults:
${faults}
steps:
${steps}
`,
    'faults.yaml',
  ),
  baseDir: '.',
  file: 'faults.yaml',
});

const sweepReports = (steps: readonly StepRecord<RunReport>[]): RunReport[] =>
  steps.flatMap((s) => (s.kind === 'sweep' && s.report ? [s.report] : []));

describe('the operator pictures of a simulation', () => {
  it('should leave a counted fault whole for the sweep (the BEFORE picture does not use it up)', async () => {
    const { simulation, sandbox } = await simulate(
      scenarioWith('  - { api: "ec2:DescribeInstances", status: 500, times: 3 }', '  - advance: 1m\n  - sweep: {}'),
      { operator: cliOperator, keepOpen: true },
    );
    try {
      const failed = sandbox.aws.requestLog.entries.filter(
        (e) => e.operation === 'DescribeInstances' && e.status === 500,
      );
      // All three met the sweep, a minute in (it retried past them), none the picture taken at the start.
      expect(failed).toHaveLength(3);
      expect(failed.every((e) => e.at - sandbox.start >= 60_000)).toBe(true);
      expect(sweepReports(simulation.steps).map((r) => r.errors)).toEqual([[]]);
      expect(simulation.before.rows).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
  });

  it('should picture the world before and after under a whole-scenario fault on a call the picture needs', async () => {
    const { simulation } = await simulate(scenarioWith('  - { api: "eks:DescribeCluster", status: 500 }'), {
      operator: cliOperator,
    });

    expect(simulation.before.rows).toHaveLength(1);
    expect(simulation.after.rows).toHaveLength(1);
  });
});
