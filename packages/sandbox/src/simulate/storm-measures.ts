// What a storm of interruptions did to the world, measured from the sandbox's own records, never
// from what the reconciler reports about itself:
// - cordons: when each warned Node was first stored unschedulable (the Kubernetes store's own
//   change feed), against its deadline (the warning's time + 2 minutes);
// - EC2: the Describe* requests the AWS emulator received in any one second of the virtual clock
//   (every attempt, throttled ones included), and those its token buckets refused;
// - Kubernetes: the reconciler's requests in flight at once. A request of a deployed function takes
//   the scenario's `latency.kube` of virtual time before it reaches the API server (the Lambda
//   runtime holds it: src/lambda/worker.ts) and is answered there at once, so the request logged
//   at `at` was in flight over [at − latency, at]; the most that overlap is the count;
// - lifecycle actions: completed through the API (the reconciler's drain workflow) or applied by
//   Auto Scaling itself when the hook lapsed (AwsState's completions).
import { SPOT_NOTICE_MS } from '@ec2-node-reconciler/model/spot-notice.js';
import type { Scenario } from '../scenario/schema.js';
import type { Sandbox } from './sandbox.js';

/** One warned machine's Node: when its warning came, when it had to be cordoned by, when it was. */
export interface CordonRecord {
  readonly instanceId: string;
  readonly node: string;
  readonly warnedAt: number;
  readonly deadline: number;
  /** When the store first held the Node unschedulable after the warning; absent: never. */
  readonly cordonedAt?: number;
}

/** The most requests seen within one window of time, and where that window starts. */
export interface Peak {
  readonly count: number;
  readonly at?: number;
}

export interface StormMeasures {
  readonly cordons: readonly CordonRecord[];
  /** Warned Nodes cordoned before their deadline, in percent of the warned Nodes. */
  readonly cordonedWithinDeadlinePct: number;
  /** The slowest cordon after its warning, in ms (undefined when none was cordoned). */
  readonly slowestCordonMs?: number;
  /** EC2 Describe* requests received within any one second (all callers, every attempt). */
  readonly ec2DescribePerSecond: Peak;
  /** The same, per API (EC2 throttles each API on its own bucket). */
  readonly ec2DescribePerSecondByApi: Readonly<Record<string, number>>;
  /** EC2 requests the token buckets refused (RequestLimitExceeded). */
  readonly ec2Throttled: number;
  /** The reconciler's Kubernetes requests in flight at once (every function), and the events function's alone. */
  readonly kubeInFlight: Peak;
  readonly kubeInFlightEvents: Peak;
  /** Kubernetes requests the reconciler made in all. */
  readonly kubeRequests: number;
  /** Evictions the API server refused with 429 (a PodDisruptionBudget allowed no disruption then). */
  readonly evictionsRefused: number;
  /** Lifecycle actions completed through the API (by the reconciler) and applied by the group when its hook lapsed. */
  readonly lifecycle: { readonly byReconciler: number; readonly byTimeout: number };
}

/** The most timestamps in any window [t, t + width), with where it starts. */
export function peakWithin(times: readonly number[], width: number): Peak {
  const sorted = [...times].sort((a, b) => a - b);
  let best: Peak = { count: 0 };
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    const from = sorted[start] ?? 0;
    while (end < sorted.length && (sorted[end] ?? 0) < from + width) end++;
    if (end - start > best.count) best = { count: end - start, at: from };
  }
  return best;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The spot interruption warnings a scenario's `events` steps send: which machine, and when (the event's time). */
export function spotWarningsOf(scenario: Scenario): { readonly instanceId: string; readonly at: number }[] {
  return scenario.steps.flatMap((step) =>
    'events' in step && 'inline' in step.events
      ? step.events.inline.flatMap((event) => {
          const detail = isRecord(event['detail']) ? event['detail'] : {};
          const id = detail['instance-id'];
          const at = typeof event['time'] === 'string' ? Date.parse(event['time']) : Number.NaN;
          return event['detail-type'] === 'EC2 Spot Instance Interruption Warning' &&
            typeof id === 'string' &&
            Number.isFinite(at)
            ? [{ instanceId: id, at }]
            : [];
        })
      : [],
  );
}

/** Starts watching the Nodes of the warned machines; call before the storm's steps run. */
export function watchCordons(
  sandbox: Sandbox,
  warnings: readonly { readonly instanceId: string; readonly at: number }[],
): () => CordonRecord[] {
  const nodeOf = new Map<string, string>();
  for (const node of sandbox.scenario.nodes) {
    const id = /\/(i-[0-9a-f]+)$/.exec(node.providerID ?? '')?.[1];
    if (id !== undefined) nodeOf.set(id, node.name);
  }
  const warned = new Map<string, { instanceId: string; warnedAt: number }>();
  for (const warning of warnings) {
    const node = nodeOf.get(warning.instanceId);
    if (node !== undefined && !warned.has(node))
      warned.set(node, { instanceId: warning.instanceId, warnedAt: warning.at });
  }
  const cordonedAt = new Map<string, number>();
  const stop = sandbox.kube.store.observe((change) => {
    if (change.storage !== 'nodes' || change.deleted) return;
    const name = change.object.metadata.name ?? '';
    const warning = warned.get(name);
    const spec = (change.object as { spec?: { unschedulable?: boolean } }).spec;
    if (warning && spec?.unschedulable === true && !cordonedAt.has(name) && change.at >= warning.warnedAt)
      cordonedAt.set(name, change.at);
  });
  return () => {
    stop();
    return [...warned].map(([node, { instanceId, warnedAt }]) => {
      const at = cordonedAt.get(node);
      return {
        instanceId,
        node,
        warnedAt,
        deadline: warnedAt + SPOT_NOTICE_MS,
        ...(at !== undefined ? { cordonedAt: at } : {}),
      };
    });
  };
}

const ASSUMED_ROLE = /^arn:aws[\w-]*:sts::\d{12}:assumed-role\/[^/]+\/(.+)$/;

/** Measures the world after a storm: `cordons` from watchCordons. */
export function measureStorm(sandbox: Sandbox, cordons: readonly CordonRecord[]): StormMeasures {
  const within = cordons.filter((c) => c.cordonedAt !== undefined && c.cordonedAt <= c.deadline).length;
  const delays = cordons.flatMap((c) => (c.cordonedAt === undefined ? [] : [c.cordonedAt - c.warnedAt]));

  const describes = sandbox.aws.requestLog.filter({ service: 'ec2' }).filter((e) => e.operation.startsWith('Describe'));
  const byApi: Record<string, number> = {};
  for (const api of new Set(describes.map((e) => e.operation)))
    byApi[api] = peakWithin(
      describes.filter((e) => e.operation === api).map((e) => e.at),
      1_000,
    ).count;

  // The deployed functions are the roles' sessions the sandbox opened, named after each function.
  const functions = new Set(sandbox.stack.deployment.functions.map((fn) => fn.name));
  const sessionOf = (user: string) => ASSUMED_ROLE.exec(user)?.[1];
  const ours = sandbox.kube.requestLog.entries.filter((e) => functions.has(sessionOf(e.user) ?? ''));
  const latency = sandbox.scenario.latency?.kube ?? 0;
  // Without latency every request takes no time: only those at one same instant overlap.
  const width = Math.max(latency, 1);
  const completions = sandbox.aws.state.autoScaling.completions;
  return {
    cordons,
    cordonedWithinDeadlinePct: cordons.length === 0 ? 100 : (100 * within) / cordons.length,
    ...(delays.length > 0 ? { slowestCordonMs: Math.max(...delays) } : {}),
    ec2DescribePerSecond: peakWithin(
      describes.map((e) => e.at),
      1_000,
    ),
    ec2DescribePerSecondByApi: byApi,
    ec2Throttled: sandbox.aws.rateLimits?.throttled.length ?? 0,
    kubeInFlight: peakWithin(
      ours.map((e) => e.at - latency),
      width,
    ),
    kubeInFlightEvents: peakWithin(
      ours.filter((e) => sessionOf(e.user) === sandbox.functions.events).map((e) => e.at - latency),
      width,
    ),
    kubeRequests: ours.length,
    evictionsRefused: ours.filter((e) => e.subresource === 'eviction' && e.status === 429).length,
    lifecycle: {
      byReconciler: completions.filter((c) => c.by === 'api').length,
      byTimeout: completions.filter((c) => c.by === 'timeout').length,
    },
  };
}
