// Which scheduled sweeps of a replay run through the deployed path, and which are left out because
// they provably change nothing. A sweep is left out ("skipped: nothing changed") only when:
//
// - nothing is in flight: no drain, no asynchronous invocation, no queued event (each may change the
//   world while the sweep runs);
// - the product's own observe, classify and plan (Operator.sweepPlanner: the sweep function's code
//   and configuration, signing as its role) writes nothing now: no action (reports included), no
//   refusal that is told (a repair stood down or backed off, deletes the breaker held), no failed
//   lookup (lib/pipeline/quiet-sweep.ts writesNothing). Such a sweep changes nothing; its report would
//   say only what it refused (a maintenance cordon held for its window, a delete waiting out a grace).
//
// The planner keeps its latest observation, across the sweeps that run, and it is made again whole
// only when which objects a sweep holds may have changed in a way only a whole one tells: a Node or
// node Lease created (where it goes, what it names), or a write to an AWS service a sweep reads (EC2,
// Auto Scaling, EKS, Step Functions, IAM, Lambda) whose reach is not known (whatAWriteChanges knows
// two: a drain execution started, stopped or moved, after which the drains are asked about again; a
// lifecycle action or the health of one machine, named by its id or, for a heartbeat, by the token of
// its waiting action, which machine is read again). Otherwise only what changed is read again, by the
// product's own calls, into the kept observation: the Nodes and node Leases written or deleted since
// (a cordon, an annotation; not the heartbeats kubelets fold in, nor writes to objects a sweep does
// not read: pods, Events, PDBs), the drains the Nodes record, and the machines AWS's own changes name
// (the account's change feed: states, tags, lifecycle actions, health), that are new to the account,
// that a write or an event touched, or that EC2 answers for differently by time alone (one becoming
// visible, a terminated one dropped, a scheduled event completed). A machine joining or leaving what
// the sweep holds is added or dropped (withMachines), a deleted Node dropped with the machine only it
// named (withObjects). Either way the observation is planned at the new clock with the heartbeats
// kubelets renewed since (Lease renewTime, the Node's Ready heartbeat, worked out from
// their grid as a read would serve them), so every time-based rule is judged as the sweep would.
import type { Sandbox } from './sandbox.js';
import type { Heartbeats, SweepPlanner } from './operator.js';
import { NODE_LEASE_NAMESPACE } from '../kube/types.js';
import type { RequestLogEntry as AwsRequestLogEntry } from '../aws/request-log.js';

export const SKIPPED_NOTHING_CHANGED =
  'nothing changed: the world as the sweep reads it, planned again at the new clock, writes nothing';

/** What a sweep reads of the Kubernetes API (lib/observe/sweep.ts): Nodes, and the node Leases. */
const SWEEP_READS = (storage: string, namespace: string | undefined): boolean =>
  storage === 'nodes' || (storage === 'leases' && namespace === NODE_LEASE_NAMESPACE);

/** A write to (or the deletion of) an object a sweep reads, other than what kubelets fold in on read. */
interface KubeWrite {
  readonly storage: 'nodes' | 'leases';
  readonly name: string;
}

/** What a sweep's answers depend on besides the clock and the heartbeats, as counters. */
export interface WorldVersion {
  /** How many writes to objects a sweep reads (heartbeats aside) the store has taken. */
  readonly kube: number;
  readonly awsChanges: number;
  readonly machines: number;
  /** How many AWS calls that are not reads, to services a sweep reads, the emulator has answered. */
  readonly awsWrite: number;
}

export const sameVersion = (a: WorldVersion, b: WorldVersion): boolean =>
  a.kube === b.kube && a.awsChanges === b.awsChanges && a.machines === b.machines && a.awsWrite === b.awsWrite;

/** Calls that read: Describe*, List*, Get* and the like. Anything else may have changed something. */
const READ = /^(Describe|List|Get|BatchGet|Search|Lookup|Filter|Test)/;

/**
 * Services whose writes change nothing a sweep reads or runs with: the bus it publishes to, the queue
 * events come by, logs, and STS (its sessions). A write to any other (EC2, Auto Scaling, EKS, Step
 * Functions, IAM, Lambda's configuration, the schedule) may.
 */
const WRITES_UNSEEN_BY_SWEEPS: ReadonlySet<string> = new Set(['events', 'sqs', 'logs', 'sts']);

/**
 * What an AWS write changes of what a sweep reads, when that is narrower than "anything": a drain
 * workflow's executions (`drains`: the sweep asks about those its Nodes name), or one machine as its
 * group answers for it (a lifecycle action completed or its heartbeat recorded, its health set), read
 * again by DescribeInstances and its group like any machine an event touched. Undefined: anything (a
 * whole observation). What such a write sets off in turn (the machine terminating, the group launching
 * another) reaches the change feed and the account's machines as any other change does.
 */
export function whatAWriteChanges(
  entry: Pick<AwsRequestLogEntry, 'service' | 'operation' | 'params'>,
  /** The machine whose pending lifecycle action a group, hook and token name now (Auto Scaling's own answer). */
  machineOfAction: (selector: { group: string; hook: string; token: string }) => string | undefined = () => undefined,
): 'drains' | { readonly machine: string } | undefined {
  if (entry.service === 'states' && EXECUTION_WRITES.has(entry.operation)) return 'drains';
  if (entry.service !== 'autoscaling' || !INSTANCE_ACTION_WRITES.has(entry.operation)) return undefined;
  const field = (name: string): string | undefined => {
    const { params } = entry;
    const value = typeof params === 'object' && params !== null ? (params as Record<string, unknown>)[name] : undefined;
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const named = field('InstanceId');
  if (named !== undefined) return { machine: named };
  // A lifecycle action named by its token alone: the machine whose action it still is (a heartbeat's).
  // A completed one is gone, and which machine it was only a whole observation tells.
  const group = field('AutoScalingGroupName');
  const hook = field('LifecycleHookName');
  const token = field('LifecycleActionToken');
  const machine =
    entry.operation === 'RecordLifecycleActionHeartbeat' && group && hook && token
      ? machineOfAction({ group, hook, token })
      : undefined;
  return machine !== undefined ? { machine } : undefined;
}

/** Step Functions calls that start, end or move an execution (not a state machine's definition or its role). */
const EXECUTION_WRITES: ReadonlySet<string> = new Set([
  'StartExecution',
  'StopExecution',
  'SendTaskSuccess',
  'SendTaskFailure',
  'SendTaskHeartbeat',
]);

/** Auto Scaling calls about one instance of a group, named by InstanceId. */
const INSTANCE_ACTION_WRITES: ReadonlySet<string> = new Set([
  'CompleteLifecycleAction',
  'RecordLifecycleActionHeartbeat',
  'SetInstanceHealth',
]);

/**
 * With nothing in flight, what the kept observation needs before it is planned again: nothing
 * (`replan`), some objects read again (`reread`: Nodes and node Leases written or deleted, machines AWS's
 * changes name, new to the account, touched by an event or answered differently by time alone), or a
 * whole observation (`observe`: nothing kept, a Node or node Lease created, or an AWS call whose reach
 * is not known that writes to a service a sweep reads).
 */
export type SkipStep = 'replan' | 'reread' | 'observe';

export function skipStep(
  kept: { readonly version: WorldVersion } | undefined,
  now: {
    readonly version: WorldVersion;
    /** Whether machines the counters do not tell of must be read again (an event or a write touched them, or time alone changed EC2's answer). */
    readonly machinesToReread: boolean;
    /** Whether a drain execution was started, stopped or moved since (the drains the Nodes name are asked about again). */
    readonly drainsToReread: boolean;
  },
  /** Whether a Node or node Lease the kept observation does not hold was written since (one created). */
  objectsCame: boolean,
): SkipStep {
  if (kept === undefined || objectsCame || kept.version.awsWrite !== now.version.awsWrite) return 'observe';
  return sameVersion(kept.version, now.version) && !now.machinesToReread && !now.drainsToReread ? 'replan' : 'reread';
}

/**
 * The machines EC2 answers for differently, by time alone, at `to` than at `from`: one becoming visible
 * (from `visibleAfter` on), a terminated one dropped from its answers (from the end of its retention
 * on), a scheduled event answered as completed (once `notAfter` has passed: strictly after it).
 */
export function machinesAnsweredDifferently(
  state: Pick<Sandbox['aws']['state'], 'instances' | 'timings'>,
  from: number,
  to: number,
): string[] {
  const { instances, timings } = state;
  const reached = (t: number | undefined) => t !== undefined && t > from && t <= to;
  const passed = (t: number | undefined) => t !== undefined && t >= from && t < to;
  return instances
    .all()
    .filter(
      (record) =>
        reached(record.visibleAfter) ||
        (record.state === 'terminated' && reached(record.stateSince + timings.terminatedRetentionMs)) ||
        record.scheduledEvents.some((event) => passed(event.notAfter)),
    )
    .map((record) => record.id);
}

/** Decides, tick by tick, whether the scheduled sweep runs. */
export class SweepSkipper {
  /**
   * The version and time of the planner's kept observation. It is kept across the sweeps that run
   * (whatever happens meanwhile is in the change logs it is read again from), and dropped only when the
   * planner could not tell.
   */
  private kept: { version: WorldVersion; at: number } | undefined;
  private awsWrites = 0;
  /** Writes to the objects a sweep reads, in order; `kube` in a version counts them. */
  private readonly kubeWrites: KubeWrite[] = [];
  /** Machines the replay changed itself (an event's effects on the world) or a write named: read again at the next tick. */
  private readonly touched = new Set<string>();
  /** Whether a drain execution was started, stopped or moved since the last tick decided. */
  private drainsWritten = false;
  readonly skipped: Record<string, number> = {};

  constructor(
    private readonly sandbox: Sandbox,
    private readonly planner: SweepPlanner,
  ) {
    sandbox.kube.store.observe((change) => {
      const { storage, object, derived } = change;
      if (derived || !SWEEP_READS(storage, object.metadata.namespace)) return;
      this.kubeWrites.push({ storage: storage === 'nodes' ? 'nodes' : 'leases', name: object.metadata.name ?? '' });
    });
    // Counted as they come: the request log is bounded, and a long storm could drop a write unseen.
    sandbox.aws.requestLog.observe((entry) => {
      if (READ.test(entry.operation) || WRITES_UNSEEN_BY_SWEEPS.has(entry.service)) return;
      const changes = whatAWriteChanges(entry, (selector) => sandbox.aws.state.autoScaling.machineOfAction(selector));
      if (changes === 'drains') this.drainsWritten = true;
      else if (changes !== undefined) this.touched.add(changes.machine);
      else this.awsWrites++;
    });
  }

  /** A machine the replay itself changed (an event's effects on the world, which need not pass the change feed). */
  touch(instanceId: string): void {
    this.touched.add(instanceId);
  }

  /** Whether the sweep due now is left out; `inFlight`: something is running or queued (the sweep runs). */
  async skip(inFlight: boolean): Promise<boolean> {
    // A fault armed now may fail the sweep's calls (the deployed sweep would meet it; the planner's
    // reads, kept from before, would not): the sweep runs.
    if (inFlight || this.sandbox.aws.faults.armed || this.sandbox.kube.faults.armed) return false;
    const at = this.sandbox.clock.now();
    const kept = this.kept;
    const version = this.version();
    const writes = kept ? this.kubeWrites.slice(kept.version.kube) : [];
    // Machines an event touched, or that EC2 answers for differently by time alone since the kept observation.
    const reread = kept ? [...this.touched, ...machinesAnsweredDifferently(this.sandbox.aws.state, kept.at, at)] : [];
    const drainsToReread = this.drainsWritten;
    this.touched.clear();
    this.drainsWritten = false;
    const step = skipStep(kept, { version, machinesToReread: reread.length > 0, drainsToReread }, this.came(writes));
    // What the flags and counters held is cleared now: if telling fails, nothing may stay kept either.
    this.kept = undefined;
    const partial =
      step === 'replan'
        ? this.planner.replan(this.heartbeats())
        : step === 'reread' && kept
          ? await this.planner.reread(
              {
                instanceIds: [...new Set([...this.machinesChangedSince(kept.version), ...reread])],
                nodes: [...new Set(writes.filter((w) => w.storage === 'nodes').map((w) => w.name))],
                leases: [...new Set(writes.filter((w) => w.storage === 'leases').map((w) => w.name))],
                drains: drainsToReread,
              },
              this.heartbeats(),
            )
          : 'unknown';
    // What the kept observation could not tell, a whole one does.
    const verdict = partial === 'unknown' ? await this.planner.observe() : partial;
    // The planner's reads write what they fold in (renewals, re-registrations): the version is taken after.
    this.kept = verdict === 'unknown' ? undefined : { version: this.version(), at };
    const quiet = verdict === 'writes-nothing';
    if (quiet) this.skipped[SKIPPED_NOTHING_CHANGED] = (this.skipped[SKIPPED_NOTHING_CHANGED] ?? 0) + 1;
    return quiet;
  }

  private version(): WorldVersion {
    const { kube, aws } = this.sandbox;
    // What any read does first (kubelets re-registering, grace periods ending; AWS's transitions due
    // by now): their writes count.
    kube.store.catchUp();
    aws.state.settle();
    return {
      kube: this.kubeWrites.length,
      awsChanges: aws.state.changes.length,
      machines: aws.state.instances.all().length,
      awsWrite: this.awsWrites,
    };
  }

  /**
   * Whether `writes` touched a Node or node Lease the kept observation lacks (one created, or re-created
   * where none was held). One deleted that it holds is read again, and found gone (withObjects).
   */
  private came(writes: readonly KubeWrite[]): boolean {
    if (writes.length === 0) return false;
    const held = this.planner.observed();
    const nodes = new Set(held.nodes);
    const leases = new Set(held.leases);
    return writes.some((w) => !(w.storage === 'nodes' ? nodes : leases).has(w.name));
  }

  /** The machines the AWS changes since `version` name, and those new to the account since. */
  private machinesChangedSince(version: WorldVersion): string[] {
    const { state } = this.sandbox.aws;
    return [
      ...new Set([
        ...state.changes.slice(version.awsChanges).map((c) => c.instanceId),
        ...state.instances
          .all()
          .slice(version.machines)
          .map((r) => r.id),
      ]),
    ];
  }

  /**
   * The heartbeats of the kept observation's Leases and Nodes as the API would serve them now, worked out
   * from the kubelets' grid without folding them into the store: the planner looks at every tick, and a
   * read would write 2,000 objects each time (the sweep that runs reads them as the API serves them).
   */
  private heartbeats(): Heartbeats {
    const { store } = this.sandbox.kube;
    const { nodes, leases } = this.planner.observed();
    const leaseTimes = new Map<string, number | undefined>();
    for (const name of leases) {
      const lease = store.heartbeatOf('lease', name);
      if (lease) leaseTimes.set(name, lease.at);
    }
    const nodeTimes = new Map<string, { readyHeartbeatAt?: number; resourceVersion: string }>();
    for (const name of nodes) {
      const node = store.heartbeatOf('node', name);
      if (!node) continue;
      nodeTimes.set(name, {
        resourceVersion: node.resourceVersion,
        ...(node.at !== undefined ? { readyHeartbeatAt: node.at } : {}),
      });
    }
    return { leases: leaseTimes, nodes: nodeTimes };
  }
}
