// One pass of a drain step over its node: check the Node, list its pods, judge them, send the
// evictions due, report every pod and when to look again.
import { podKey } from './api.js';
import { lookUpDaemonSets } from './daemonsets.js';
import { nextCheckAfter } from './next-check.js';
import { checkNode } from './node-check.js';
import { planDrain } from './plan-drain.js';
import { countReports, isLeft, type LeftAt, type PodReport } from './pod-report.js';
import { applyVerdicts } from './record-stages.js';
import { deadlineOf, type PassResult, type StepContext } from './step-context.js';
import { dueEvictions, graceShortenings, sendEvictions } from './step-evictions.js';
import { listPods, matchListing } from './step-listing.js';
import { blockedOf, passStatus, podReports } from './step-reports.js';

/** One look at the node: check it, list its pods, judge them, send the evictions due, report. */
export async function pass(step: StepContext): Promise<PassResult> {
  const { api, clock, settings, state, memory } = step;
  const stop = await checkNode(step);
  if (stop) return stop;
  const deadline = deadlineOf(step);

  const pods = await listPods(step);
  await lookUpDaemonSets(api, pods, memory.daemonSets);
  const now = clock.now();
  const listing = matchListing(pods, state);
  const plan = planDrain(listing.judged, { settings, now, daemonSets: memory.daemonSets });
  const planned = [...plan.toEvict, ...plan.waiting, ...plan.refused, ...plan.skipped];
  applyVerdicts(planned, state);

  // When each terminating pod's grace period ends: the next check need not come before the first of them.
  // deletionTimestamp is truncated to whole seconds, so the grace period may run up to a second past it.
  const graceEnds = plan.waiting.flatMap((p) =>
    p.pod.deletionTimestamp === undefined ? [] : [p.pod.deletionTimestamp + 1000],
  );
  const deadlinePassed = now >= deadline;
  if (!deadlinePassed) {
    const time = { now, deadline };
    const due = [...dueEvictions(step, plan, time), ...graceShortenings(step, plan, time)];
    graceEnds.push(...(await sendEvictions(step, due, listing, deadline)));
  }

  const plannedByKey = new Map(planned.map((p) => [podKey(p.pod), p]));
  const first = podReports(step, listing, plannedByKey, { now: clock.now(), final: deadlinePassed });
  const status = passStatus(first, deadlinePassed);
  const leftAt: LeftAt | undefined = status === 'in-progress' || status === 'drained' ? undefined : status;
  const final =
    status === 'in-progress' ? first : podReports(step, listing, plannedByKey, { now: clock.now(), final: true });
  const everyPod = final.map((r): PodReport =>
    leftAt && (isLeft(r) || r.status === 'terminating') ? { ...r, left: leftAt } : r,
  );
  const remaining = everyPod.filter((r) => isLeft(r) || r.status === 'terminating');
  return {
    status,
    remaining,
    blocked: blockedOf(remaining),
    pods: everyPod,
    counts: countReports(everyPod),
    nextCheckAfterMs:
      status === 'in-progress' ? nextCheckAfter(step, first, listing, graceEnds, { now: clock.now(), deadline }) : 0,
    deadline,
    ...(state.lifecycle ? { lifecycle: state.lifecycle } : {}),
  };
}
