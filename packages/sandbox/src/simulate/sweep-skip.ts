// Which scheduled sweeps of a replay run through the deployed path, and which are left out because
// they provably change nothing. A sweep is left out ("skipped: nothing changed") only when:
//
// - nothing is in flight: no drain, no asynchronous invocation, no queued event (each may change the
//   world while the sweep runs);
// - the product's own observe, classify and plan (Operator.sweepPlanner: the sweep function's code
//   and configuration, signing as its role) plans nothing now: no action, no report, no refusal, no
//   failed lookup. Such a sweep writes nothing and reports "nothing to do".
//
// The whole observation is made again only when the world changed in a way only it tells: a write to
// the Kubernetes API (its resourceVersion, after the time-driven catch-up every read does first), an
// AWS call that is not a read, or a moment when EC2 answers differently by time alone (a new machine
// becoming visible, a terminated one dropped, a scheduled event completed). AWS's own changes (the
// account's change feed: states, tags, lifecycle actions, health) and machines new to the account name
// their machines: those are described again, by the product's own calls, into the kept observation,
// unless which machines the sweep holds changed (then the whole observation again). Either way the
// observation is planned at the new clock with the heartbeats kubelets renewed since (Lease renewTime,
// the Node's Ready heartbeat), so every time-based rule is judged as the sweep would judge it.
import type { Sandbox } from './sandbox.js';
import type { Heartbeats, SweepPlanner } from './operator.js';

export const SKIPPED_NOTHING_CHANGED =
  'nothing changed: the world as the sweep reads it, planned again at the new clock, plans nothing';

/** What a sweep's answers depend on besides the clock and the heartbeats, as counters. */
export interface WorldVersion {
  readonly kube: string;
  readonly awsChanges: number;
  readonly machines: number;
  /** The sequence number of the latest AWS call that is not a read. */
  readonly awsWrite: number;
}

export const sameVersion = (a: WorldVersion, b: WorldVersion): boolean =>
  a.kube === b.kube && a.awsChanges === b.awsChanges && a.machines === b.machines && a.awsWrite === b.awsWrite;

/** Calls that read: Describe*, List*, Get* and the like. Anything else may have changed something. */
const READ = /^(Describe|List|Get|BatchGet|Search|Lookup|Filter|Test)/;

/**
 * With nothing in flight, what the kept observation needs before it is planned again: nothing
 * (`replan`), some machines described again (`redescribe`: only AWS changes that name machines, or
 * machines new to the account), or a whole observation (`observe`: nothing kept, a write to the
 * Kubernetes API, an AWS call that writes, or a moment when EC2 answers differently by time alone).
 */
export type SkipStep = 'replan' | 'redescribe' | 'observe';

export function skipStep(
  kept: { readonly version: WorldVersion; readonly changesBy: number } | undefined,
  now: { readonly version: WorldVersion; readonly at: number },
): SkipStep {
  if (kept === undefined || now.at >= kept.changesBy) return 'observe';
  if (kept.version.kube !== now.version.kube || kept.version.awsWrite !== now.version.awsWrite) return 'observe';
  return sameVersion(kept.version, now.version) ? 'replan' : 'redescribe';
}

/** Decides, tick by tick, whether the scheduled sweep runs. */
export class SweepSkipper {
  private kept: { version: WorldVersion; changesBy: number } | undefined;
  private lastWrite = 0;
  private lastSeq = 0;
  readonly skipped: Record<string, number> = {};

  constructor(
    private readonly sandbox: Sandbox,
    private readonly planner: SweepPlanner,
  ) {}

  /** Whether the sweep due now is left out; `inFlight`: something is running or queued. */
  async skip(inFlight: boolean): Promise<boolean> {
    if (inFlight) {
      this.kept = undefined;
      return false;
    }
    const at = this.sandbox.clock.now();
    const kept = this.kept;
    const version = this.version();
    const step = skipStep(kept, { version, at });
    const quiet =
      step === 'replan'
        ? this.planner.replan(this.heartbeats())
        : step === 'redescribe' && kept
          ? await this.planner.redescribe(this.machinesChangedSince(kept.version), this.heartbeats())
          : await this.planner.observe();
    // Reading heartbeats writes them (the store folds renewals in on read): the version is taken after.
    this.kept = quiet ? { version: this.version(), changesBy: this.lazyChangeAfter(at) } : undefined;
    if (quiet) this.skipped[SKIPPED_NOTHING_CHANGED] = (this.skipped[SKIPPED_NOTHING_CHANGED] ?? 0) + 1;
    return quiet;
  }

  private version(): WorldVersion {
    const { kube, aws } = this.sandbox;
    // What any read does first (kubelets re-registering, grace periods ending): its writes count.
    kube.store.catchUp();
    const entries = aws.requestLog.entries;
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry === undefined || entry.seq <= this.lastSeq) break;
      if (!READ.test(entry.operation)) this.lastWrite = Math.max(this.lastWrite, entry.seq);
    }
    this.lastSeq = entries.at(-1)?.seq ?? this.lastSeq;
    return {
      kube: kube.store.resourceVersion,
      awsChanges: aws.state.changes.length,
      machines: aws.state.instances.all().length,
      awsWrite: this.lastWrite,
    };
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

  /** The first moment after `at` when EC2 answers differently by time alone (isVisible, scheduled events' completion). */
  private lazyChangeAfter(at: number): number {
    const { instances, timings } = this.sandbox.aws.state;
    let first = Number.POSITIVE_INFINITY;
    const consider = (t: number | undefined) => {
      if (t !== undefined && t > at && t < first) first = t;
    };
    for (const record of instances.all()) {
      consider(record.visibleAfter);
      if (record.state === 'terminated') consider(record.stateSince + timings.terminatedRetentionMs);
      for (const event of record.scheduledEvents) consider(event.notAfter);
    }
    return first;
  }

  /** The kept observation's Leases and Nodes as the API serves them now. */
  private heartbeats(): Heartbeats {
    const { store } = this.sandbox.kube;
    const { nodes, leases } = this.planner.observed();
    const leaseTimes = new Map<string, string | undefined>();
    for (const name of leases) {
      const lease = store.getLease(name);
      if (lease) leaseTimes.set(name, lease.spec?.renewTime ?? undefined);
    }
    const nodeTimes = new Map<string, { readyHeartbeatTime?: string; resourceVersion: string }>();
    for (const name of nodes) {
      const node = store.getNode(name);
      if (!node) continue;
      const heartbeat = node.status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime;
      nodeTimes.set(name, {
        resourceVersion: node.metadata.resourceVersion ?? '',
        ...(heartbeat ? { readyHeartbeatTime: heartbeat } : {}),
      });
    }
    return { leases: leaseTimes, nodes: nodeTimes };
  }
}
