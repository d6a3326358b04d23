// The command line as the operator of a simulated cluster: the sandbox runs a scenario, and when it
// needs what a person at a terminal would do (a dry-run sweep to picture the cluster, `drain NODE`)
// it calls these, the same code the CLI runs against a real cluster, with the sandbox's addresses.
import type { Operator, OperatorAccess, SweepPlanner } from '@ec2-node-reconciler/sandbox/simulate/operator.js';
import { AutoScalingAdapter } from '../lib/aws/autoscaling.js';
import { createAwsClients } from '../lib/aws/clients.js';
import { drainDeps } from '../lib/drain/deps.js';
import { runOperatorDrain } from './drain/operator-drain.js';
import { KubeClient } from '../lib/kube/client.js';
import { bearerConnection } from '../lib/kube/connection.js';
import { NodeEventRecorder } from '../lib/kube/events.js';
import { WarmRuntime } from '../lib/lambda/runtime.js';
import type { ReconcilerDeps } from '../lib/pipeline/deps.js';
import { decisionContext, runSweep } from '../lib/pipeline/run.js';
import { decide } from '../lib/pipeline/decide.js';
import { readFunctionConfig } from '../lib/lambda/config.js';
import type { Observation } from '@ec2-node-reconciler/model/observation.js';
import { observeSweep } from '../lib/observe/sweep.js';
import { isInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { enrichInstances } from '../lib/observe/enrich.js';
import { plansNothing, retimed, withMachines } from '../lib/pipeline/quiet-sweep.js';
import type { RunReport } from '../lib/report/report.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One warm runtime per sandbox (its clock is its identity): the BEFORE and AFTER snapshots share
 * the endpoint and token it caches, as the old sandbox's sweep runtime did, so a fault injected on
 * DescribeCluster later in a scenario does not fail the AFTER picture.
 */
const runtimes = new WeakMap<OperatorAccess['clock'], WarmRuntime>();

/** Reconciler deps signed as the sweep function's role, from a warm runtime kept per sandbox. */
export function reconcilerDepsIn(access: OperatorAccess): Promise<ReconcilerDeps> {
  const runtime = runtimes.get(access.clock) ?? newRuntime(access);
  runtimes.set(access.clock, runtime);
  return runtime.reconcilerDeps(access.settings);
}

function newRuntime(access: OperatorAccess): WarmRuntime {
  return new WarmRuntime(
    {
      clusterName: access.clusterName,
      region: access.region,
      settings: access.settings,
      drainStateMachineArn: access.drainStateMachineArn,
    },
    access.clock,
    { endpoint: access.aws.endpoint, credentials: access.aws.credentials },
  );
}

/**
 * The sweep function's observe, classify and plan, in a warm runtime of its own configuration (the
 * deployed function's environment) signing as its role: what a replay asks before leaving a sweep out.
 */
function sweepPlanner(access: OperatorAccess, environment: Readonly<Record<string, string>>): SweepPlanner {
  const runtime = new WarmRuntime(readFunctionConfig(environment), access.clock, {
    endpoint: access.aws.endpoint,
    credentials: access.aws.credentials,
  });
  let kept: { observation: Observation; deps: ReconcilerDeps } | undefined;
  return {
    observe: async () => {
      kept = undefined;
      const deps = await runtime.reconcilerDeps();
      const { observation, errors } = await observeSweep(deps);
      if (!plansNothing(observation, errors, decide(observation, [], decisionContext(deps)).plan)) return false;
      kept = { observation, deps };
      return true;
    },
    observed: () => ({
      nodes: kept?.observation.nodes.map((n) => n.name) ?? [],
      leases: [...(kept?.observation.leases.keys() ?? [])],
    }),
    replan: (heartbeats) => {
      const observation = kept && retimed(kept.observation, heartbeats);
      return (
        kept !== undefined &&
        observation !== undefined &&
        plansNothing(observation, [], decide(observation, [], decisionContext(kept.deps)).plan)
      );
    },
    redescribe: async (ids, heartbeats) => {
      const was = kept;
      kept = undefined;
      const observation = was && retimed(was.observation, heartbeats);
      if (!was || !observation) return false;
      const { deps } = was;
      const lookup = await deps.ec2.describeByIds(ids.filter(isInstanceId));
      if (lookup.errors.size > 0) return false;
      const enriched = await enrichInstances(deps, lookup.found);
      if (enriched.errors.length > 0) return false;
      const next = withMachines(
        observation,
        { found: enriched.instances, notFound: lookup.notFound },
        { name: deps.clusterName, region: deps.region },
      );
      if (!next || !plansNothing(next, [], decide(next, [], decisionContext(deps)).plan)) return false;
      kept = { observation: next, deps };
      return true;
    },
  };
}

export const cliOperator: Operator<RunReport> = {
  snapshot: async (access) =>
    runSweep(await reconcilerDepsIn(access), { region: access.region, accountId: access.accountId }),
  drain: (access, request) => {
    const connection = bearerConnection({
      server: access.kube.url,
      token: access.kube.token,
      ...(access.kube.caCert ? { caData: Buffer.from(access.kube.caCert).toString('base64') } : {}),
    });
    // The operator's own AWS credentials, as the CLI's drain uses them for a lifecycle action handed to it.
    const autoScaling = new AutoScalingAdapter(
      createAwsClients({
        region: access.region,
        endpoint: access.operatorAws.endpoint,
        credentials: access.operatorAws.credentials,
      }).autoScaling,
    );
    return runOperatorDrain(
      drainDeps({ connection, clock: access.clock, settings: access.settings, sleep: access.sleep }),
      request,
      {
        recordHeartbeat: (instanceId, lifecycle) => autoScaling.recordHeartbeat(instanceId, lifecycle),
        completeLifecycleAction: (instanceId, lifecycle) =>
          autoScaling.completeLifecycleAction(instanceId, lifecycle, 'CONTINUE'),
        events: new NodeEventRecorder(new KubeClient(connection), access.clock),
      },
    );
  },
  // The functions' JSON reports: the shape the report module writes (the sandbox only carries them).
  readReport: (value) =>
    isRecord(value) && Array.isArray(value.actions) && Array.isArray(value.rows) && isRecord(value.conditions)
      ? (value as unknown as RunReport)
      : undefined,
  // A replay keeps every sweep's actions and skips; the rows of its pairs are in BEFORE and AFTER.
  trim: (report) => ({ ...report, rows: [] }),
  sweepPlanner,
};
