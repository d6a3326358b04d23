// A group's lifecycle hook is one, whichever members name it: what any member writes of it (timeout,
// default result, a Pending or Terminating state's transition) is the hook's, not only the first's.
import { describe, expect, it } from 'vitest';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { cliOperator } from '../../cli/simulation-operator.js';

describe('a hook written on a later member', () => {
  it("should be seeded with that member's timeout, default result and transition", async () => {
    const loaded = {
      scenario: parseScenario(
        `
name: hook-on-a-later-member
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: i-0a1b2c3d4e5f60001, state: running, zone: us-east-1a, tags: { eks:cluster-name: demo }, autoScaling: { group: ng, hook: launch } }
  - { id: i-0a1b2c3d4e5f60002, state: pending, zone: us-east-1a, tags: { eks:cluster-name: demo }, autoScaling: { group: ng, hook: launch, lifecycleState: "Pending:Wait", heartbeatTimeout: 5m, defaultResult: CONTINUE } }
steps:
  - advance: 0s
`,
        'hooks.yaml',
      ),
      baseDir: '.',
      file: 'hooks.yaml',
    };
    const { sandbox } = await simulate(loaded, { operator: cliOperator, keepOpen: true });
    try {
      expect(sandbox.aws.state.autoScaling.hook('ng', 'launch')).toMatchObject({
        transition: 'autoscaling:EC2_INSTANCE_LAUNCHING',
        heartbeatTimeoutMs: 300_000,
        defaultResult: 'CONTINUE',
      });
    } finally {
      await sandbox.close();
    }
  });
});
