// Checks a scenario's `expect` against the end state of the sandbox (docs/scenarios.md).
import { denialsOf, describeDenial } from './denials.js';
import { drainRecords } from './drain-records.js';
import { MIRROR_POD_ANNOTATION, type NodeObject, type PodObject } from '../kube/index.js';
import type { NodeExpectation, ScenarioExpect } from '../scenario/schema.js';
import type { ReportView } from './operator.js';
import type { ExpectationResult, StepRecord } from './records.js';
import type { Sandbox } from './sandbox.js';

const isDaemonSetPod = (pod: PodObject) =>
  pod.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet' && o.controller === true) === true;
const isMirrorPod = (pod: PodObject) => pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;
// A pod Kubernetes is done with (its phase is terminal): judged here, not with the drain's own rule.
const isCompleted = (pod: PodObject) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** Pods a drain should have removed that are still on the node (terminating ones included). */
function podsLeft(sandbox: Sandbox, node: string): PodObject[] {
  return sandbox.kube.store.listPods({ node }).filter((p) => !isDaemonSetPod(p) && !isMirrorPod(p) && !isCompleted(p));
}

const sortedJson = (value: unknown) =>
  JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

/** A request the API carried out (a 2xx answer), not one it refused or failed. */
const carriedOut = (entry: { readonly status: number }): boolean => entry.status >= 200 && entry.status < 300;

function touchedBy(sandbox: Sandbox, name: string): string[] {
  const seeded = sandbox.seededNodes.get(name);
  const now = sandbox.kube.store.getNode(name);
  const changes: string[] = [];
  if (!seeded || !now) return ['node missing'];
  // Deleted, and registered again by its kubelet (a new object of the same name): not the seeded Node.
  if (seeded.metadata.uid !== now.metadata.uid) changes.push('deleted (re-registered by its kubelet with a new uid)');
  if ((seeded.spec?.unschedulable ?? false) !== (now.spec?.unschedulable ?? false)) changes.push('spec.unschedulable');
  if (sortedJson(seeded.metadata.labels ?? {}) !== sortedJson(now.metadata.labels ?? {})) changes.push('labels');
  if (sortedJson(seeded.metadata.annotations ?? {}) !== sortedJson(now.metadata.annotations ?? {}))
    changes.push('annotations');
  if (sortedJson(seeded.spec?.taints ?? []) !== sortedJson(now.spec?.taints ?? [])) changes.push('taints');
  const podsOfNode = new Set(
    sandbox.scenario.pods.filter((p) => p.node === name).map((p) => `${p.namespace}/${p.name}`),
  );
  const removed = sandbox.kube.requestLog
    .filter({ resource: 'pods' })
    // What the API carried out: a refused eviction (429, a budget) or a failed delete removed nothing.
    .filter(
      (e) =>
        (e.subresource === 'eviction' || e.verb === 'delete') &&
        carriedOut(e) &&
        podsOfNode.has(`${e.namespace}/${e.name}`),
    );
  if (removed.length > 0) changes.push(`${removed.length} pod eviction(s)/deletion(s)`);
  return changes;
}

function checkNode(sandbox: Sandbox, name: string, want: NodeExpectation): string[] {
  const node: NodeObject | undefined = sandbox.kube.store.getNode(name);
  const fail = (what: string) => [`nodes.${name}: ${what}`];
  const unschedulable = node?.spec?.unschedulable === true;
  if (typeof want === 'string') {
    switch (want) {
      case 'deleted':
        return node ? fail('expected deleted, but the Node exists') : [];
      case 'present':
        return node ? [] : fail('expected present, but the Node does not exist');
      case 'cordoned':
        return !node
          ? fail('expected cordoned, but the Node does not exist')
          : unschedulable
            ? []
            : fail('expected cordoned, but spec.unschedulable is not true');
      case 'drained': {
        if (!node) return fail('expected drained, but the Node does not exist');
        if (!unschedulable) return fail('expected drained, but the Node is not cordoned');
        const left = podsLeft(sandbox, name);
        return left.length === 0
          ? []
          : fail(
              `expected drained, but ${left.length} pod(s) are left: ${left.map((p) => `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`).join(', ')}`,
            );
      }
      case 'untouched': {
        if (!node) return fail('expected untouched, but the Node does not exist');
        const changes = touchedBy(sandbox, name);
        return changes.length === 0 ? [] : fail(`expected untouched, but changed: ${changes.join(', ')}`);
      }
    }
  }
  const problems: string[] = [];
  if (want.exists !== undefined && want.exists !== (node !== undefined))
    problems.push(`exists: expected ${String(want.exists)}, got ${String(node !== undefined)}`);
  if (want.unschedulable !== undefined && want.unschedulable !== unschedulable)
    problems.push(`unschedulable: expected ${String(want.unschedulable)}, got ${String(unschedulable)}`);
  if (want.podsLeft !== undefined) {
    const left = podsLeft(sandbox, name).length;
    if (left !== want.podsLeft) problems.push(`podsLeft: expected ${want.podsLeft}, got ${left}`);
  }
  if (want.taints !== undefined) {
    const keys = (node?.spec?.taints ?? []).map((t) => t.key).sort();
    const wanted = [...want.taints].sort();
    if (JSON.stringify(keys) !== JSON.stringify(wanted))
      problems.push(`taints: expected [${wanted.join(', ')}], got [${keys.join(', ')}]`);
  }
  return problems.map((p) => `nodes.${name}.${p}`);
}

/** What an expectation reads of a stored Event. */
interface EventView {
  readonly involvedObject?: { readonly kind?: string; readonly name?: string };
  readonly reason?: string;
  readonly count?: number;
}

export function checkExpectations(
  sandbox: Sandbox,
  expect: ScenarioExpect,
  steps: readonly StepRecord<ReportView>[],
): ExpectationResult {
  const failures: string[] = [];
  let passed = 0;
  const record = (problems: string[]) => {
    if (problems.length === 0) passed += 1;
    else failures.push(...problems);
  };

  for (const [name, want] of Object.entries(expect.nodes ?? {})) record(checkNode(sandbox, name, want));

  if (expect.lifecycleActions !== undefined) {
    // A completion by the reconciler is `instance:RESULT`; one the group applied when the hook lapsed carries `by timeout`.
    const got = sandbox.aws.state.autoScaling.completions
      .map((c) => `${c.instanceId}:${c.result}${c.by === 'timeout' ? ' by timeout' : ''}`)
      .sort();
    const wanted = expect.lifecycleActions
      .map((a) => `${a.instance}:${a.result}${a.by === 'timeout' ? ' by timeout' : ''}`)
      .sort();
    record(
      JSON.stringify(got) === JSON.stringify(wanted)
        ? []
        : [`lifecycleActions: expected [${wanted.join(', ')}], got [${got.join(', ')}]`],
    );
    // A completion too early is a machine handed back while its drain still had time to run.
    const early = expect.lifecycleActions.flatMap((a) => {
      const { notBefore } = a;
      if (notBefore === undefined) return [];
      const bound = sandbox.start + notBefore;
      return sandbox.aws.state.autoScaling.completions
        .filter((c) => c.instanceId === a.instance && c.at < bound)
        .map(
          (c) =>
            `lifecycleActions: ${a.instance} was completed at +${Math.round((c.at - sandbox.start) / 1000)}s, before +${Math.round(notBefore / 1000)}s (notBefore)`,
        );
    });
    record(early);
  }

  if (expect.conditions !== undefined) {
    const lastSweep = steps.filter((s) => s.kind === 'sweep').at(-1);
    if (!lastSweep || lastSweep.kind !== 'sweep') record(['conditions: no sweep step ran']);
    else if (!lastSweep.report) record([`conditions: the last sweep failed (${lastSweep.failed ?? 'no report'})`]);
    else {
      const problems: string[] = [];
      for (const [condition, count] of Object.entries(expect.conditions)) {
        const got = lastSweep.report.conditions[condition];
        if (got !== count) problems.push(`conditions.${condition}: expected ${count}, got ${got}`);
      }
      record(problems);
    }
  }

  if (expect.deletions !== undefined) {
    const deletions = sandbox.kube.requestLog.filter({ verb: 'delete', resource: 'nodes' }).filter(carriedOut).length;
    record(deletions === expect.deletions ? [] : [`deletions: expected ${expect.deletions}, got ${deletions}`]);
  }

  if (expect.evictionsBlocked !== undefined) {
    // Refused by the API (a disruption budget), not by a fault the scenario injected.
    const blocked = sandbox.kube.requestLog
      .filter({ resource: 'pods', subresource: 'eviction', status: 429 })
      .filter((e) => e.injected !== true).length;
    record(
      blocked === expect.evictionsBlocked
        ? []
        : [`evictionsBlocked: expected ${expect.evictionsBlocked}, got ${blocked}`],
    );
  }

  if (expect.drainsStarted !== undefined) {
    // A drain continued in a chained execution is still one drain: only first executions count.
    const started = [...sandbox.stepFunctions.executions.values()]
      .filter((e) => !isChainedExecution(e.record.input))
      .map((e) => e.record.name);
    record(
      started.length === expect.drainsStarted
        ? []
        : [`drainsStarted: expected ${expect.drainsStarted}, got ${started.length} (${started.join(', ') || 'none'})`],
    );
  }

  for (const [node, reasons] of Object.entries(expect.events ?? {})) {
    const events = sandbox.kube.store.list(sandbox.kube.store.resource('events', ''), {}).items as EventView[];
    const problems: string[] = [];
    for (const [reason, count] of Object.entries(reasons)) {
      const told = events
        .filter((e) => e.involvedObject?.kind === 'Node' && e.involvedObject.name === node && e.reason === reason)
        .reduce((sum, e) => sum + (e.count ?? 1), 0);
      if (told !== count) problems.push(`events.${node}.${reason}: expected ${count}, got ${told}`);
    }
    record(problems);
  }

  if (expect.deadLetters !== undefined) {
    const dead = sandbox.queue.deadLetters;
    const which = dead.map((d) => `${d.detailType}: ${d.lastError ?? ''}`).join('; ');
    record(
      dead.length === expect.deadLetters
        ? []
        : [`deadLetters: expected ${expect.deadLetters}, got ${dead.length}${which ? ` (${which})` : ''}`],
    );
  }

  if (expect.repairs !== undefined) record(checkRepairs(sandbox, expect.repairs));
  if (expect.denied !== undefined) {
    const denied = denialsOf(sandbox);
    const which = denied.slice(0, 5).map(describeDenial).join('; ');
    record(
      denied.length === expect.denied
        ? []
        : [
            `denied: expected ${expect.denied}, got ${denied.length}${which ? ` (${which}${denied.length > 5 ? '; …' : ''})` : ''}`,
          ],
    );
  }

  return { passed, failures };
}

/**
 * `repairs`: the machines the reconciler marked Unhealthy are exactly those listed, and each was
 * repaired as the format says: a machine that had a Node was drained first (a drain of it had ended
 * when it was marked), and its group replaced it (it is terminated or terminating, and a new member
 * was launched in its place).
 */
function checkRepairs(sandbox: Sandbox, wanted: NonNullable<ScenarioExpect['repairs']>): string[] {
  const state = sandbox.aws.state;
  const marks = state.autoScaling.healthChanges.filter((c) => c.healthStatus === 'UNHEALTHY');
  const got = [...new Set(marks.map((c) => c.instanceId))].sort();
  const expected = wanted.map((r) => r.instance).sort();
  if (JSON.stringify(got) !== JSON.stringify(expected))
    return [`repairs: expected [${expected.join(', ')}], got [${got.join(', ')}] marked Unhealthy`];
  const problems: string[] = [];
  const at = (ms: number) => `+${Math.round((ms - sandbox.start) / 1000)}s`;
  // The machines seeded with a Node (by its providerID; seededNodes keeps only the Nodes expectations name).
  const seededWithNode = new Set(
    sandbox.scenario.nodes.flatMap((n) => /\/(i-[0-9a-f]+)$/.exec(n.providerID ?? '')?.[1] ?? []),
  );
  for (const id of expected) {
    const marked = Math.min(...marks.filter((c) => c.instanceId === id).map((c) => c.at));
    const hadNode = seededWithNode.has(id);
    const drained = drainRecords(sandbox).some(
      (r) => r.instanceId === id && r.finishedAt !== undefined && r.finishedAt <= marked,
    );
    if (hadNode && !drained)
      problems.push(`repairs.${id}: marked Unhealthy at ${at(marked)} with no drain of its Node ended before`);
    const instance = state.instances.get(id);
    const lifecycle = state.autoScaling.member(id)?.lifecycleState ?? '';
    const going =
      instance?.state === 'terminated' || instance?.state === 'shutting-down' || lifecycle.startsWith('Terminating');
    const replacement = state.changes.find((c) => c.kind === 'instance-launched' && c.replaces === id);
    if (!going || replacement === undefined)
      problems.push(
        `repairs.${id}: not replaced by its group (instance ${instance?.state ?? 'unknown'}, ${lifecycle || 'no lifecycle state'}, ${replacement ? 'a replacement launched' : 'no replacement launched'})`,
      );
  }
  return problems;
}

/** Whether an execution's input (StartExecution's JSON) continues an earlier execution of its drain. */
function isChainedExecution(input: string): boolean {
  try {
    const chain = (JSON.parse(input) as { chain?: unknown }).chain;
    return typeof chain === 'number' && chain > 0;
  } catch {
    return false;
  }
}
