// `npm run bench storm`: the storm scenarios (scripts/make-storm-scenario.ts) in the deployed-world
// sandbox, with request latency on the virtual clock and EC2's token buckets on, measured from the
// sandbox's own records (packages/sandbox/src/simulate/storm-measures.ts):
// - 500 spot interruption warnings within 60 s across 500 nodes of a 2,000-node cluster: warned
//   Nodes cordoned before their deadline, EC2 Describe* requests in any one second (every caller,
//   every attempt), the reconciler's Kubernetes requests in flight at once (all its functions);
// - an instance refresh, 200 lifecycle actions over 10 minutes under PodDisruptionBudgets that allow
//   one disruption per app: actions completed by the reconciler, not by the hook's timeout.
// STORM_BENCH_SCALE=0.1 runs both at a tenth of the size (no results recorded).
import { ec2RequestBucket } from '@ec2-node-reconciler/sandbox/aws/rate-limits.js';
import { KUBE_SEATS } from '@ec2-node-reconciler/model/contract/api-budgets.js';
import { refreshScenarioText, spotStormScenarioText } from '../../scripts/make-storm-scenario.js';
import { runStorm, type StormRun } from '../support/storm.js';
import type { BenchResult } from './support/results.js';
import type { BenchFigures, BenchOutput } from './run.js';

const SCALE = Number(process.env['STORM_BENCH_SCALE'] ?? 1);
const scaled = (n: number): number => Math.max(1, Math.round(n * SCALE));

function figuresOf(prefix: string, run: StormRun): BenchFigures {
  const m = run.measures;
  return {
    [`${prefix}.virtualSeconds`]: run.virtualSeconds,
    [`${prefix}.wallSeconds`]: Number(((run.seedMs + run.runMs) / 1000).toFixed(1)),
    [`${prefix}.expectations`]: run.simulation.expectations?.failures.join('; ') || 'all hold',
    [`${prefix}.denied`]: run.simulation.denied.length,
    [`${prefix}.ec2DescribePerSecond`]: m.ec2DescribePerSecond.count,
    [`${prefix}.ec2DescribePerSecondByApi`]: JSON.stringify(m.ec2DescribePerSecondByApi),
    [`${prefix}.ec2Throttled`]: m.ec2Throttled,
    [`${prefix}.kubeInFlight`]: m.kubeInFlight.count,
    [`${prefix}.kubeInFlightEventsFunction`]: m.kubeInFlightEvents.count,
    [`${prefix}.kubeRequests`]: m.kubeRequests,
    [`${prefix}.evictionsRefused`]: m.evictionsRefused,
    [`${prefix}.invocations`]: JSON.stringify(run.functions),
  };
}

export default async function storm(): Promise<BenchOutput> {
  const warnings = scaled(500);
  const spot = await runStorm(
    spotStormScenarioText({ nodes: scaled(2000), warnings, withinSeconds: 60 }),
    'spot-storm.json',
  );
  const actions = scaled(200);
  const refresh = await runStorm(
    refreshScenarioText({ nodes: scaled(400), actions, minutes: 10 }),
    'instance-refresh.json',
  );
  const m = spot.measures;
  const figures: BenchFigures = {
    ...figuresOf('spot', spot),
    'spot.warnedNodes': m.cordons.length,
    'spot.slowestCordonSeconds': (m.slowestCordonMs ?? Number.NaN) / 1000,
    ...figuresOf('refresh', refresh),
    'refresh.lifecycleByReconciler': refresh.measures.lifecycle.byReconciler,
    'refresh.lifecycleByTimeout': refresh.measures.lifecycle.byTimeout,
  };
  // Every warning must have found its Node: a missing one counts as not cordoned.
  const cordonedPct =
    (100 * m.cordons.filter((c) => c.cordonedAt !== undefined && c.cordonedAt <= c.deadline).length) / warnings;
  const completedPct = (100 * refresh.measures.lifecycle.byReconciler) / actions;
  // EC2's own table (the sandbox's): the refill of the smaller bucket a DescribeInstances can draw on
  // (unfiltered, unpaginated), stricter than the 20 a second of the filtered bucket the reconciler's use.
  const describeRefill = ec2RequestBucket('DescribeInstances', {}).spec.refillPerSecond;
  const results: BenchResult[] =
    SCALE === 1
      ? [
          {
            name: 'storm-500-spot-cordoned-within-deadline-pct',
            unit: '%',
            value: Number(cordonedPct.toFixed(1)),
            goal: 100,
            better: 'higher',
          },
          {
            name: 'storm-500-spot-max-ec2-describe-per-s',
            unit: '/s',
            value: m.ec2DescribePerSecond.count,
            goal: describeRefill,
            better: 'lower',
          },
          {
            name: 'storm-500-spot-max-kube-inflight',
            unit: 'count',
            value: m.kubeInFlight.count,
            goal: KUBE_SEATS.goal,
            better: 'lower',
          },
          {
            name: 'refresh-200-lifecycle-completed-pct',
            unit: '%',
            value: Number(completedPct.toFixed(1)),
            goal: 100,
            better: 'higher',
          },
        ]
      : [];
  return { figures, results };
}
