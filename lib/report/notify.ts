import type { ActionOutcome } from '../act/outcome.js';
import type { OutputEvent, OutputEventPublisher } from '../aws/output-events.js';
import { LIFECYCLE_COMPLETED_REASON } from '../drain/lifecycle-completed-event.js';
import type { NodeEvent, NodeEventRecorder } from '../kube/events.js';
import type { Action, Plan, RepairTrigger } from '@ec2-node-reconciler/model/action.js';
import type { Condition } from '@ec2-node-reconciler/model/condition.js';
import { partitionOfRegion } from '@ec2-node-reconciler/model/partition.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';

/** Kubernetes Event reasons, one per action and per divergence (listed in docs/observability.md). */
export const EVENT_REASONS = {
  delete: 'NodeDeleted',
  cordon: 'NodeCordoned',
  drain: 'DrainStarted',
  'taint-shutdown': 'ShutdownTaintAdded',
  'remove-shutdown-taint': 'ShutdownTaintRemoved',
  'uncordon-own': 'NodeUncordoned',
  'forget-drain': 'RemovalOver',
  'complete-lifecycle': LIFECYCLE_COMPLETED_REASON,
  'mark-unhealthy': 'InstanceMarkedUnhealthy',
} as const satisfies Record<Exclude<Action['kind'], 'report' | 'repair'>, string>;

/** A repair's reasons, one per step, and its stand-down (docs/design.md §1b). */
export const REPAIR_EVENT_REASONS = {
  drain: 'RepairStarted',
  replace: 'NodeRepaired',
  cancel: 'RepairCancelled',
  blocked: 'RepairBlocked',
} as const satisfies Record<Extract<Action, { kind: 'repair' }>['step'] | 'blocked', string>;

const reasonOf = (action: Exclude<Action, { kind: 'report' }>): string =>
  action.kind === 'repair' ? REPAIR_EVENT_REASONS[action.step] : EVENT_REASONS[action.kind];

const triggersDetail = (triggers: readonly RepairTrigger[]) =>
  triggers.map((t) => ({ condition: t.type, status: t.status, since: new Date(t.since).toISOString() }));

export const DIVERGENCE_REASONS = {
  'stale-object': 'CircuitBreakerTripped',
  // Never reported: a machine without a Node has no object to tell.
  gone: 'MachineGone',
  'unresponsive-machine': 'UnresponsiveMachine',
  'unregistered-machine': 'UnregisteredMachine',
  'identity-conflict': 'IdentityConflict',
  unknown: 'InstanceLookupFailed',
  'slated-for-removal': 'ExcludedFromRemoval',
  'in-sync': 'InSync',
  'stopped-machine': 'StoppedMachine',
  'not-ec2': 'NotEc2',
  'other-owner': 'OtherOwner',
} as const satisfies Record<Condition, string>;

/** Divergences worth an alert downstream (the reconciler could not fix them). */
const ALERTING: ReadonlySet<Condition> = new Set([
  'identity-conflict',
  'unregistered-machine',
  'unresponsive-machine',
  'stale-object',
]);

/** What notifying needs: where Kubernetes Events are recorded and output events published. */
export interface NotifyDeps {
  /** Names the cluster in the output events. */
  readonly clusterName: string;
  readonly events: Pick<NodeEventRecorder, 'record'>;
  /** The reconciler's own EventBridge bus; absent where nobody listens (CLI without a bus). */
  readonly output?: Pick<OutputEventPublisher, 'publish'>;
}

/** Where the run happened, for instance ARNs; without both parts no ARN is made (never a malformed one). */
export interface RunPlace {
  readonly region?: string;
  readonly accountId?: string;
}

const instanceArn = ({ region, accountId }: RunPlace, id: string | undefined): string[] =>
  id && region && accountId
    ? [`arn:${partitionOfRegion(region)?.id ?? 'aws'}:ec2:${region}:${accountId}:instance/${id}`]
    : [];

/** The deletions the circuit breaker held back: each such Node is told why it was not deleted. */
function heldBackByBreaker(plan: Pick<Plan, 'skipped' | 'breaker'> | undefined): string[] {
  const breaker = plan?.breaker;
  if (!breaker) return [];
  return plan.skipped.flatMap((s) =>
    s.kind === 'delete' && s.reason === breaker.reason && s.node !== undefined ? [s.node] : [],
  );
}

/** What to tell Kubernetes and EventBridge about a run's outcomes (and, given the plan, the deletions its breaker held back). Pure. */
export function notificationsFor(
  outcomes: readonly ActionOutcome[],
  cluster: string,
  place: RunPlace = {},
  plan?: Pick<Plan, 'skipped' | 'breaker'>,
): { kube: NodeEvent[]; output: OutputEvent[] } {
  const kube: NodeEvent[] = [];
  const output: OutputEvent[] = [];
  for (const node of heldBackByBreaker(plan)) {
    kube.push({
      node,
      reason: DIVERGENCE_REASONS['stale-object'],
      message: plan?.breaker?.reason ?? '',
      type: 'Warning',
    });
  }
  // A repair the group's unhealthy share stood down: the node is told, and downstream alerting.
  // So does a repair its group's back-off held (its replacements kept failing).
  for (const skipped of plan?.skipped ?? []) {
    const { standDown, backOff } = skipped;
    if (skipped.kind !== 'repair' || (standDown === undefined && backOff === undefined)) continue;
    if (skipped.node !== undefined)
      kube.push({ node: skipped.node, reason: REPAIR_EVENT_REASONS.blocked, message: skipped.reason, type: 'Warning' });
    const why =
      backOff !== undefined
        ? {
            scope: 'back-off',
            ...backOff,
            first: new Date(backOff.first).toISOString(),
            last: new Date(backOff.last).toISOString(),
          }
        : standDown;
    output.push({
      detailType: 'Node Repair Blocked',
      detail: { cluster, node: skipped.node, instanceId: skipped.instanceId, ...why, reason: skipped.reason },
      resources: instanceArn(place, skipped.instanceId),
    });
  }
  for (const { action, outcome, detail } of outcomes) {
    if (outcome === 'dry-run' || outcome === 'unchanged') continue;
    const node = 'node' in action ? action.node : undefined;
    const uid = 'uid' in action ? action.uid : action.kind === 'complete-lifecycle' ? action.nodeUid : undefined;
    if (action.kind === 'report') {
      if (node)
        kube.push({
          node,
          reason: DIVERGENCE_REASONS[action.condition],
          message: action.reason,
          // Another owner's Node is as it should be: told once, as a Normal Event.
          type: action.once ? 'Normal' : 'Warning',
          ...(action.once ? { once: true } : {}),
        });
      if (ALERTING.has(action.condition)) {
        output.push({
          detailType: 'Divergence Detected',
          detail: { cluster, condition: action.condition, node, instanceId: action.instanceId, reason: action.reason },
          resources: instanceArn(place, action.instanceId),
        });
      }
      continue;
    }
    const failed = outcome === 'failed' || outcome === 'moot';
    const message = failed
      ? `${action.kind} ${outcome}: ${detail ?? ''} (wanted because: ${action.reason})`
      : action.reason;
    // A deleted Node is gone, but an Event naming it still shows in `kubectl get events`; a delete
    // that failed or was moot (e.g. re-registered under the same name) is a Warning like any other.
    if (node)
      kube.push({
        node,
        ...(uid ? { uid } : {}),
        reason: reasonOf(action),
        message,
        type: failed ? 'Warning' : 'Normal',
      });
    if (action.kind === 'delete' && outcome === 'done') {
      output.push({
        detailType: 'Node Deleted',
        detail: { cluster, node, instanceId: action.instanceId, reason: action.reason },
        resources: instanceArn(place, action.instanceId),
      });
    }
    if (action.kind === 'repair' && action.step === 'drain' && outcome === 'started') {
      output.push({
        detailType: 'Node Repair Started',
        detail: {
          cluster,
          node,
          instanceId: action.instanceId,
          group: action.group,
          execution: action.execution,
          deadline: new Date(action.deadline).toISOString(),
          conditions: triggersDetail(action.triggers),
          reason: action.reason,
        },
        resources: instanceArn(place, action.instanceId),
      });
    }
    if (action.kind === 'repair' && action.step === 'replace' && outcome === 'done') {
      output.push({
        detailType: 'Node Repaired',
        detail: {
          cluster,
          node,
          instanceId: action.instanceId,
          group: action.group,
          execution: action.execution,
          drainOutcome: action.drainOutcome,
          conditions: triggersDetail(action.triggers),
          reason: action.reason,
        },
        resources: instanceArn(place, action.instanceId),
      });
    }
  }
  return { kube, output };
}

/** Kubernetes Events recorded concurrently at most. */
const EVENT_CONCURRENCY = 8;

/** Tells Kubernetes and EventBridge about a run's outcomes as they come. */
export interface Notifier {
  /** An action's outcome (`index`: its place in the plan): its Kubernetes Event goes out now, beside the run's remaining actions. */
  add(outcome: ActionOutcome, index: number): void;
  /** Waits for every Event, publishes the output events (batched), and returns what failed. */
  done(): Promise<string[]>;
}

/**
 * Starts notifying for a run: the Events of the deletions the breaker held back and of the repairs
 * stood down go out at once (a stand-down's output event with the rest, first), each
 * action's Event as soon as its outcome is known (a cordon's Event while its drain's StartExecution
 * is in flight), a few at a time; output events are published together at the end, alongside the
 * last Events. A failure to notify is an error in the report, never a failed run.
 */
export function startNotifying(
  deps: NotifyDeps,
  place: RunPlace = {},
  plan?: Pick<Plan, 'skipped' | 'breaker'>,
): Notifier {
  const errors: string[] = [];
  const queue: NodeEvent[] = [];
  // Published in plan order, whatever order the outcomes came in.
  const output: { readonly index: number; readonly events: readonly OutputEvent[] }[] = [];
  const workers = new Set<Promise<void>>();
  const work = async (): Promise<void> => {
    for (let event = queue.shift(); event !== undefined; event = queue.shift()) {
      try {
        await deps.events.record(event);
      } catch (error) {
        errors.push(`recording event ${event.reason} on ${event.node}: ${errorText(error)}`);
      }
    }
  };
  const enqueue = (events: readonly NodeEvent[]): void => {
    queue.push(...events);
    // A few at a time: a run that trips the breaker, or meets an EC2 outage, has an Event for every Node.
    while (workers.size < EVENT_CONCURRENCY && workers.size < queue.length) {
      const worker = work().finally(() => workers.delete(worker));
      workers.add(worker);
    }
  };
  // What the plan says without an action: the breaker's held-back deletions, the repairs stood down (their output events first, as in the plan).
  const planned = notificationsFor([], deps.clusterName, place, plan);
  if (planned.output.length > 0) output.push({ index: -1, events: planned.output });
  enqueue(planned.kube);
  return {
    add(outcome, index) {
      const { kube, output: events } = notificationsFor([outcome], deps.clusterName, place);
      if (events.length > 0) output.push({ index, events });
      enqueue(kube);
    },
    async done() {
      const events = [...output].sort((a, b) => a.index - b.index).flatMap((o) => o.events);
      const publish = async (): Promise<void> => {
        if (!deps.output || events.length === 0) return;
        try {
          const published = await deps.output.publish(events);
          for (const f of published.failed) errors.push(`publishing ${f.detailType}: ${f.error}`);
        } catch (error) {
          errors.push(`publishing output events: ${errorText(error)}`);
        }
      };
      const published = publish();
      while (workers.size > 0) await Promise.all(workers);
      await published;
      return errors;
    },
  };
}

/** Sends the notifications of a finished run; see startNotifying. */
export async function notify(
  deps: NotifyDeps,
  outcomes: readonly ActionOutcome[],
  place: RunPlace = {},
  plan?: Pick<Plan, 'skipped' | 'breaker'>,
): Promise<string[]> {
  const notifier = startNotifying(deps, place, plan);
  outcomes.forEach((outcome, index) => notifier.add(outcome, index));
  return notifier.done();
}
