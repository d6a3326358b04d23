// The command line as the operator of a simulated cluster: the sandbox runs a scenario, and when it
// needs what a person at a terminal would do (a dry-run sweep to picture the cluster, `drain NODE`)
// it calls these, the same code the CLI runs against a real cluster, with the sandbox's addresses.
import type {
  Operator,
  OperatorAccess,
  PlanVerdict,
  SweepPlanner,
} from '@ec2-node-reconciler/sandbox/simulate/operator.js';
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
import { observedWhole, retimed, withMachines, withObjects, writesNothing } from '../lib/pipeline/quiet-sweep.js';
import { drainStates } from '../lib/observe/drains.js';
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
  // The deps decide with their settings, clock and cluster (decisionContext); their clients are not used again.
  let kept: { observation: Observation; deps: ReconcilerDeps } | undefined;
  /** Keeps `observation` and says what a sweep deciding on it would do. */
  const verdict = (observation: Observation, deps: ReconcilerDeps): PlanVerdict => {
    kept = { observation, deps };
    return writesNothing(observation, [], decide(observation, [], decisionContext(deps)).plan)
      ? 'writes-nothing'
      : 'writes';
  };
  return {
    observe: async () => {
      kept = undefined;
      const deps = await runtime.reconcilerDeps();
      const { observation, errors } = await observeSweep(deps);
      // A partial observation is not kept: what failed is read again only by a whole one.
      if (!observedWhole(observation, errors)) return 'unknown';
      return verdict(observation, deps);
    },
    observed: () => ({
      nodes: kept?.observation.nodes.map((n) => n.name) ?? [],
      leases: [...(kept?.observation.leases.keys() ?? [])],
    }),
    replan: (heartbeats) => {
      const was = kept;
      const observation = was && retimed(was.observation, heartbeats);
      kept = undefined;
      return was && observation ? verdict(observation, was.deps) : 'unknown';
    },
    reread: async (changed, heartbeats) => {
      const was = kept;
      kept = undefined;
      if (!was) return 'unknown';
      // As each invocation does: the warm runtime's clients, with a token renewed when it is old.
      const deps = await runtime.reconcilerDeps();
      const cluster = { name: deps.clusterName, region: deps.region };
      // The Nodes and Leases written or deleted since, read as the sweep reads them (its NodeView and LeaseView).
      const [nodes, leases] = await Promise.all([
        Promise.all(changed.nodes.map(async (name) => [name, await deps.finder.read(name)] as const)),
        Promise.all(changed.leases.map(async (name) => [name, await deps.leases.getLease(name)] as const)),
      ]);
      const patched = withObjects(was.observation, { nodes: new Map(nodes), leases: new Map(leases) }, cluster);
      // The heartbeats are of the objects there are now: those of the deleted ones are gone with them.
      const retimedNow = patched && retimed(patched.observation, heartbeats);
      if (!patched || !retimedNow) return 'unknown';
      let observation = retimedNow;
      if (changed.drains || patched.recordsChanged || observation.drains.size > 0) {
        // The workflow is asked about the drains the Nodes record, as the sweep asks: an execution
        // may have started, or ended, with no write to its Node.
        const drains = await drainStates(deps, observation.nodes);
        if (drains.errors.length > 0) return 'unknown';
        observation = { ...observation, drains: drains.states };
      }
      const ids = changed.instanceIds.filter(isInstanceId);
      if (ids.length > 0) {
        const lookup = await deps.ec2.describeByIds(ids);
        if (lookup.errors.size > 0) return 'unknown';
        const enriched = await enrichInstances(deps, lookup.found);
        if (enriched.errors.length > 0) return 'unknown';
        const next = withMachines(observation, { found: enriched.instances, notFound: lookup.notFound }, cluster);
        if (!next) return 'unknown';
        observation = next;
      }
      return verdict(observation, deps);
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
