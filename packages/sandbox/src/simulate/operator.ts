// The operator of a simulated cluster: a person running the product's command line against the
// sandbox (a dry-run sweep for the BEFORE and AFTER pictures, `drain NODE` for a scenario's drain
// step). The sandbox says where and as whom the operator reaches it; the product says what its
// commands do. So the sandbox depends on the product's model and contract only, and the code under
// test is never part of the world that judges it.
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import type { EmulatorCredential } from '../aws/sigv4.js';

/** What the oracle reads of the reconciler's run report (the scenario format's `expect.conditions`). */
export interface ReportView {
  readonly conditions: Readonly<Record<string, number>>;
}

/** Where the operator reaches the sandbox, and as whom. */
export interface OperatorAccess {
  readonly clock: VirtualClock;
  /** Waits on the virtual clock: the whole world moves on meanwhile. */
  readonly sleep: (ms: number) => Promise<void>;
  readonly clusterName: string;
  readonly region: string;
  readonly accountId: string;
  /** The scenario's settings over the defaults: what the deployed functions run with. */
  readonly settings: Settings;
  /** The deployed drain state machine. */
  readonly drainStateMachineArn: string;
  /** The Kubernetes API, with a cluster-admin token (the operator's kubeconfig). */
  readonly kube: { readonly url: string; readonly token: string; readonly caCert?: string };
  /** The AWS emulator, as the sweep function's role (a snapshot sees what the sweep sees). */
  readonly aws: { readonly endpoint: string; readonly credentials: EmulatorCredential };
  /**
   * The AWS emulator as the operator themself, the sandbox's administrator (no fault or policy applies):
   * what a `drain` step completes and heartbeats a lifecycle action handed to it with.
   */
  readonly operatorAws: { readonly endpoint: string; readonly credentials: EmulatorCredential };
}

/** What an operator's drain ended with. */
export interface OperatorDrainResult {
  readonly status: string;
  readonly message?: string;
}

/** What kubelets refresh as time passes, as the API would serve it now, epoch ms (lib/pipeline/quiet-sweep.ts reads it). */
export interface Heartbeats {
  /** Lease spec.renewTime by node name; a name missing here has no Lease now. */
  readonly leases: ReadonlyMap<string, number | undefined>;
  /** The Node's Ready lastHeartbeatTime and its resourceVersion, by name; a name missing here has no Node now. */
  readonly nodes: ReadonlyMap<string, { readonly readyHeartbeatAt?: number; readonly resourceVersion: string }>;
}

/**
 * What the sweep would do now, by the planner's kept observation: write nothing (it may be left out), or
 * write (it runs); `unknown` when the planner could not tell and keeps nothing (it runs).
 */
export type PlanVerdict = 'writes-nothing' | 'writes' | 'unknown';

/** What changed since a sweep planner's kept observation, by name. */
export interface ChangedObjects {
  readonly instanceIds: readonly string[];
  readonly nodes: readonly string[];
  readonly leases: readonly string[];
  /** Whether a drain execution was started, stopped or moved: the drains the Nodes name are asked about again. */
  readonly drains: boolean;
}

/**
 * The sweep function's decision outside the function (its code, its configuration, its role): what
 * a replay asks before leaving out a scheduled sweep (sweep-skip.ts).
 */
export interface SweepPlanner {
  /** Observes the world as the sweep would now and keeps the observation: whether it writes nothing now. */
  observe(): Promise<PlanVerdict>;
  /** The Nodes and Leases of the kept observation (whose heartbeats to read); empty before observe(). */
  observed(): { readonly nodes: readonly string[]; readonly leases: readonly string[] };
  /** Whether the kept observation, its heartbeats as read now, writes nothing at the clock's now. */
  replan(heartbeats: Heartbeats): PlanVerdict;
  /**
   * Like replan, with these objects read again first: Nodes and node Leases written or deleted since
   * (each held by the kept observation), machines whose tags or state changed, new to the account or
   * answered for differently by time alone. `unknown`, and nothing kept, when that cannot tell (a Node
   * now names another machine, a Node is paired by DNS name while Nodes or machines changed, a read failed).
   */
  reread(changed: ChangedObjects, heartbeats: Heartbeats): Promise<PlanVerdict>;
}

/** The product's commands that a scenario's operator runs. */
export interface Operator<Report extends ReportView> {
  /** A dry-run sweep as the sweep function's role: what the reconciler sees, nothing mutated. */
  snapshot(access: OperatorAccess): Promise<Report>;
  /** `drain NODE`: the operator's cordon, then eviction until done or `timeoutMs`. */
  drain(
    access: OperatorAccess,
    request: { readonly node: string; readonly reason: string; readonly timeoutMs: number },
  ): Promise<OperatorDrainResult>;
  /** A run report out of a function's response or log line; undefined when the value is not one. */
  readReport(value: unknown): Report | undefined;
  /**
   * The report as a long replay keeps it, every sweep's: what was done and skipped, without a row per
   * pair (a month of sweeps of a big cluster would hold millions). @default - kept whole
   */
  trim?(report: Report): Report;
  /**
   * The sweep function's decision, observed and made as it makes them, for a replay to leave out the
   * sweeps that would do nothing; `environment` is the deployed function's. Without it every sweep runs.
   */
  sweepPlanner?(access: OperatorAccess, environment: Readonly<Record<string, string>>): SweepPlanner;
}
