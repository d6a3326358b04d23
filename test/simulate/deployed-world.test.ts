// The sandbox is the deployed stack: what its permissions, its workflow and its hooks do shows in a
// scenario's outcome. Each test here runs the synthesized template (bundled functions, the real
// definition, the deployed IAM policies) and reads what AWS recorded.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { NamedPolicy } from '@ec2-node-reconciler/sandbox/aws/iam/policy.js';
import { drainStepFunction } from '@ec2-node-reconciler/sandbox/deployed/deploy.js';
import type { Deployment } from '@ec2-node-reconciler/sandbox/deployment/template.js';
import { loadScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { cliOperator } from '../../cli/simulation-operator.js';

const SCENARIOS = fileURLToPath(new URL('../scenarios/', import.meta.url));
const MINUTE = 60_000;

/** The deployment with `action` taken out of every statement of every role's policies. */
function withoutPermission(action: string) {
  const strip = (policy: NamedPolicy): NamedPolicy => ({
    ...policy,
    document: {
      ...policy.document,
      Statement: policy.document.Statement.map((statement) =>
        statement.Action ? { ...statement, Action: statement.Action.filter((a) => a !== action) } : statement,
      ).filter((statement) => statement.Action === undefined || statement.Action.length > 0),
    },
  });
  return (deployment: Deployment): Deployment => ({
    ...deployment,
    roles: deployment.roles.map((role) => ({ ...role, policies: role.policies.map(strip) })),
  });
}

const bundles: string[] = [];
afterAll(() => bundles.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The deployment with the drain-step function replaced by `source` (an index.mjs): a handler of another version. */
function withDrainStep(source: string) {
  const dir = mkdtempSync(join(tmpdir(), 'drain-step-'));
  bundles.push(dir);
  writeFileSync(join(dir, 'index.mjs'), source);
  return (deployment: Deployment): Deployment => {
    const drainStep = drainStepFunction(deployment);
    return {
      ...deployment,
      functions: deployment.functions.map((fn) =>
        fn === drainStep ? { ...fn, assetPath: dir, handler: 'index.handler' } : fn,
      ),
    };
  };
}

describe('the deployed permissions decide', () => {
  it('should leave the lifecycle action to the hook timeout, and show the denial, when the policy lacks autoscaling:CompleteLifecycleAction', async () => {
    const loaded = await loadScenario(join(SCENARIOS, 'asg-lifecycle-action-drains-and-continues.yaml'));

    const intact = (await simulate(loaded, { operator: cliOperator })).simulation;
    const stripped = (
      await simulate(loaded, {
        operator: cliOperator,
        sandbox: { alterDeployment: withoutPermission('autoscaling:CompleteLifecycleAction') },
      })
    ).simulation;

    expect(intact.expectations?.failures).toEqual([]);
    expect(intact.denied).toEqual([]);
    expect(stripped.expectations?.failures).toEqual([
      expect.stringMatching(/^lifecycleActions: expected \[i-0bb0000000000e101:CONTINUE\], got \[\]/),
    ]);
    expect(stripped.denied.map((d) => d.call)).toContain('autoscaling:CompleteLifecycleAction');
    expect(
      stripped.denied.every(
        (d) => d.call === 'autoscaling:CompleteLifecycleAction' && /assumed-role\/.*DrainWorkflow/.test(d.by),
      ),
    ).toBe(true);
  });
});

/** How the drain ended, as AWS recorded it: outcome events on the stack's bus, lifecycle completions, executions. */
const endOf = (sandbox: Awaited<ReturnType<typeof simulate>>['sandbox']) => ({
  published: sandbox.aws.state.eventBus.events
    .filter((e) => e.eventBusName !== 'default')
    .map((e) => [e.detailType, e.detail['outcome']]),
  completed: sandbox.aws.state.autoScaling.completions.map((c) => [c.instanceId, c.result, c.by]),
  executions: sandbox.aws.state.stepFunctions.executions().map((e) => [e.status, e.error]),
});

describe('the drain workflow keeps a lifecycle action alive and always ends it', () => {
  it('should drain for 20+ minutes behind a PDB under a 300 s hook, through two failed drain-step invocations, heartbeating at most every 150 s', async () => {
    const loaded = await loadScenario(join(SCENARIOS, 'lifecycle-long-pdb-drain-outlives-hook-timeout.yaml'));
    const { simulation, sandbox } = await simulate(loaded, { operator: cliOperator, keepOpen: true });
    try {
      expect(simulation.expectations?.failures).toEqual([]);
      const [drain] = simulation.drains;
      expect(drain?.status).toBe('drained');
      expect((drain?.finishedAt ?? 0) - (drain?.startedAt ?? 0)).toBeGreaterThanOrEqual(20 * MINUTE);

      // The two injected failures hit drain-step invocations, and the workflow retried them.
      const [execution] = [...sandbox.stepFunctions.executions.values()];
      const failures = execution?.execution.history.filter((e) => e.type === 'TaskFailed') ?? [];
      expect(failures).toHaveLength(2);

      // Completed by the reconciler, never by the hook's timeout; no gap reached half the hook's 300 s.
      const { completions, heartbeats } = sandbox.aws.state.autoScaling;
      expect(completions.map((c) => [c.result, c.by])).toEqual([['CONTINUE', 'api']]);
      const completedAt = completions[0]?.at ?? 0;
      const beats = [drain?.startedAt ?? 0, ...heartbeats.map((h) => h.at), completedAt].sort((a, b) => a - b);
      const gaps = beats.slice(1).map((at, i) => at - (beats[i] ?? at));
      expect(Math.max(...gaps)).toBeLessThanOrEqual(150_000);
    } finally {
      await sandbox.close();
    }
  });

  it('should complete the lifecycle action with CONTINUE and publish Drain Failed at the deadline when the drain step keeps failing', async () => {
    const loaded = await loadScenario(join(SCENARIOS, 'lifecycle-drain-step-failing-completes-and-reports.yaml'));
    const { simulation, sandbox } = await simulate(loaded, { operator: cliOperator, keepOpen: true });
    try {
      expect(simulation.expectations?.failures).toEqual([]);
      expect(endOf(sandbox)).toEqual({
        // Lambda refusing the step is transient: tried again until the deadline, which ends the drain.
        published: [['Drain Failed', 'deadline']],
        completed: [['i-0a0000000000a1601', 'CONTINUE', 'api']],
        executions: [['FAILED', 'DrainDeadlinePassed']],
      });
    } finally {
      await sandbox.close();
    }
  });

  it('should complete the lifecycle action with CONTINUE and publish Drain Failed when the drain step answers an outcome the contract lacks', async () => {
    const loaded = await loadScenario(join(SCENARIOS, 'asg-lifecycle-action-drains-and-continues.yaml'));
    const otherVersion = withDrainStep("export const handler = async () => ({ outcome: 'paused', counts: {} });\n");
    const { simulation, sandbox } = await simulate(loaded, {
      operator: cliOperator,
      keepOpen: true,
      sandbox: { alterDeployment: otherVersion },
    });
    try {
      expect(simulation.denied).toEqual([]);
      expect(endOf(sandbox)).toEqual({
        published: [['Drain Failed', 'unexpected']],
        completed: [['i-0bb0000000000e101', 'CONTINUE', 'api']],
        executions: [['FAILED', 'UnexpectedDrainStepOutcome']],
      });
    } finally {
      await sandbox.close();
    }
  });
});

describe('what the world refuses shows as denied', () => {
  it('should count the 401s of a role without an EKS access entry', async () => {
    const loaded = await loadScenario(join(SCENARIOS, 'lifecycle-drain-step-failing-completes-and-reports.yaml'));
    const noEntry = (deployment: Deployment): Deployment => {
      const role = drainStepFunction(deployment)?.roleArn;
      return { ...deployment, accessEntries: deployment.accessEntries.filter((e) => e.principalArn !== role) };
    };
    const { simulation } = await simulate(
      { ...loaded, scenario: { ...loaded.scenario, faults: [] } },
      { operator: cliOperator, sandbox: { alterDeployment: noEntry } },
    );

    expect(simulation.denied.length).toBeGreaterThan(0);
    expect(simulation.denied.every((d) => d.api === 'kube')).toBe(true);
  });

  it('should deliver nothing, and say why, when the events function’s role may not receive from its queue', async () => {
    const loaded = await loadScenario(join(SCENARIOS, 'spot-warning-drain.yaml'));
    const noSqs = (deployment: Deployment): Deployment => ({
      ...deployment,
      roles: deployment.roles.map((role) => ({
        ...role,
        policies: role.policies.map((p) => ({
          ...p,
          document: {
            ...p.document,
            Statement: p.document.Statement.filter((st) => !(st.Action ?? []).some((a) => a.startsWith('sqs:'))),
          },
        })),
      })),
    });
    const { simulation } = await simulate(loaded, { operator: cliOperator, sandbox: { alterDeployment: noSqs } });

    expect(simulation.denied.map((d) => d.call)).toContain('sqs:ReceiveMessage');
    expect(simulation.steps.filter((s) => s.kind === 'event').map((s) => 'ignored' in s && s.ignored)).toEqual([
      expect.stringMatching(/does not poll the queue/),
    ]);
    expect(simulation.drains).toEqual([]);
  });
});

describe('Lambda as the services meet it', () => {
  it('should refuse a second sweep while the first holds the reserved concurrency of 1, cold or warm', async () => {
    const loaded = await loadScenario(join(SCENARIOS, 'in-sync-nothing-to-do.yaml'));
    const { sandbox } = await simulate(loaded, { operator: cliOperator, keepOpen: true });
    try {
      const sweep = sandbox.lambda.host(sandbox.functions.sweep);
      expect(sweep?.fn.reservedConcurrency).toBe(1);
      await sandbox.lambda.close();
      const both = await Promise.allSettled([
        sandbox.lambda.invoke(sandbox.functions.sweep, {}),
        sandbox.lambda.invoke(sandbox.functions.sweep, {}),
      ]);
      expect(both.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
      expect(both[1]).toMatchObject({ reason: { code: 'TooManyRequestsException' } });
    } finally {
      await sandbox.close();
    }
  });

  it('should fail the scheduled sweep when Lambda refuses the Scheduler’s invoke (a fault on lambda:InvokeFunction)', async () => {
    const loaded = await loadScenario(join(SCENARIOS, 'in-sync-nothing-to-do.yaml'));
    const faulty = {
      ...loaded,
      scenario: { ...loaded.scenario, faults: [{ api: 'lambda:InvokeFunction', status: 500 }] },
    };
    const { simulation } = await simulate(faulty, { operator: cliOperator });

    expect(simulation.steps.filter((s) => s.kind === 'sweep').map((s) => 'failed' in s && s.failed)).toEqual([
      expect.stringMatching(/did not run/),
      expect.stringMatching(/did not run/),
    ]);
  });
});
