// A drain step's look at its Node, first thing every pass: still the incarnation the drain is bound
// to, still cordoned once the drain cordoned it (cordoned the first time), what the event path handed
// over on it, and the drain's record on it renewed when due.
import * as z from 'zod';
import { LifecycleRefSchema } from '@ec2-node-reconciler/model/contract/drain-workflow.js';
import {
  DRAIN_ANNOTATION,
  DRAIN_DEADLINE_ANNOTATION,
  LIFECYCLE_ANNOTATION,
} from '@ec2-node-reconciler/model/contract/labels.js';
import { cordon, isOurCordonGone, type NodeWriteView } from '../kube/node-writes.js';
import { renewalPatch, renewDrain } from './claim.js';
import { RENEW_INTERVAL_MS } from '../plan/drain-liveness.js';
import type { PassResult, StepContext } from './step-context.js';
import { ended } from './step-reports.js';
import type { WorkingState } from './state.js';

const IsoDateSchema = z.iso.datetime({ offset: true });

/**
 * Takes what the event path announced on the Node: an earlier deadline (never a later one: a
 * deadline is when the machine goes) and a lifecycle action handed over to this drain.
 */
function takeHandover(state: WorkingState, node: NodeWriteView, execution: string | undefined): void {
  // Another drain's record (an older one left on the Node, or none of ours at all) hands over nothing.
  if (execution === undefined || node.annotations[DRAIN_ANNOTATION] !== execution) return;
  const deadline = IsoDateSchema.safeParse(node.annotations[DRAIN_DEADLINE_ANNOTATION]);
  if (deadline.success) {
    const at = Date.parse(deadline.data);
    state.deadline = Math.min(state.deadline ?? at, at);
  }
  const text = node.annotations[LIFECYCLE_ANNOTATION];
  if (text === undefined) return;
  try {
    const lifecycle = LifecycleRefSchema.safeParse(JSON.parse(text));
    if (lifecycle.success) state.lifecycle = lifecycle.data;
  } catch {
    // Not JSON: the annotation is ignored, as one that does not match the schema.
  }
}

async function readNode({ api, request }: Pick<StepContext, 'api' | 'request'>): Promise<NodeWriteView | undefined> {
  try {
    return await api.getNode(request.node);
  } catch (cause) {
    throw new Error(`reading node ${request.node}`, { cause });
  }
}

/**
 * Renews this drain's record on the Node when a renewal is due (lib/plan/drain-liveness.ts): a record
 * nobody renews is taken for a dead drain's. Best effort: a failed renewal fails nothing, and the
 * next pass tries again (the record lives for two intervals).
 */
async function renewRecord({ api, clock, request }: StepContext, node: NodeWriteView): Promise<void> {
  const { execution } = request;
  if (execution === undefined) return;
  const options = { execution, chain: request.chain ?? 0 };
  if (renewalPatch(node, options, clock.now(), RENEW_INTERVAL_MS) === undefined) return;
  try {
    await renewDrain(
      api,
      request.node,
      { ...options, expectedUid: node.uid, observed: node },
      RENEW_INTERVAL_MS,
      clock,
    );
  } catch {
    // Renewed at the next pass: the record outlives one missed renewal.
  }
}

/**
 * The Node, checked every pass: still the incarnation this drain is bound to, and (once the drain
 * confirmed its cordon) still cordoned. Returns how the drain ends, or undefined to go on.
 */
export async function checkNode(step: StepContext): Promise<PassResult | undefined> {
  const { api, clock, request, state } = step;
  const name = request.node;
  const node = await readNode(step);
  const bound = state.nodeUid ?? request.cordon.expectedUid;
  const gone = () => ended(step, 'node-gone', `node ${name} no longer exists`);
  const replaced = (uid: string) =>
    ended(
      step,
      'node-replaced',
      `node ${name} is now another Node (uid ${uid}), not the one this drain started on (${bound ?? 'unknown'}): it is left alone`,
    );
  if (!node) return gone();
  if (bound !== undefined && node.uid !== bound) return replaced(node.uid);
  state.nodeUid = node.uid;
  takeHandover(state, node, request.execution);
  if (state.cordoned) {
    // Never cordoned again: whoever uncordoned it (and maybe cordoned it again, theirs now) decided to keep it.
    if (isOurCordonGone(node))
      return ended(
        step,
        'cancelled-by-uncordon',
        `node ${name} was uncordoned by someone else mid-drain; the drain stops and leaves it schedulable`,
      );
    await renewRecord(step, node);
    return undefined;
  }
  const result = await cordon(api, name, { ...request.cordon, expectedUid: node.uid, observed: node }, clock);
  if (result.kind === 'not-found') return gone();
  if (result.kind === 'uid-mismatch') return replaced(result.uid);
  state.cordoned = true;
  await renewRecord(step, result.node);
  return undefined;
}
