// The rails a Node delete passes even for a stale-object (docs/design.md §4), as an ordered list of pure
// checks (./check.ts). Defence in depth: classify already required most of them, and they are judged
// again here on purpose, each from the observation itself, so that no change to classify alone can
// delete a Node. The circuit breaker (./breaker.ts) then bounds the run's deletes as a whole.
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import type { ClassifiedPair } from '@ec2-node-reconciler/model/condition.js';
import { formatDuration } from '@ec2-node-reconciler/model/duration.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import { firstRefusal, pass, refuse, type Check } from './check.js';
import { notExcluded } from './exclusion.js';

export interface DeleteSubject {
  readonly pair: ClassifiedPair;
  readonly node: NodeView;
  readonly now: number;
  readonly settings: Pick<Settings, 'heartbeatGrace' | 'minNodeAge' | 'notFoundGrace'>;
  /** The opt-out that holds (lib/plan/exclusion.ts), or undefined. */
  readonly excluded: string | undefined;
}

export type DeleteCheckCode = 'not-terminated' | 'heartbeat' | 'node-age' | 'not-found-grace' | 'excluded';

type DeleteCheck = Check<DeleteSubject, DeleteCheckCode>;

/** EC2 says terminated, or does not know the instance at all. */
const terminated: DeleteCheck = ({ pair }) => {
  const state = pair.instance?.state;
  return state !== undefined && state !== 'terminated'
    ? refuse('not-terminated', `instance is ${state}, not terminated`)
    : pass();
};

/** The kubelet has been silent for longer than heartbeatGrace. */
const heartbeatStale: DeleteCheck = ({ pair, now, settings }) =>
  pair.heartbeatAt !== undefined && now - pair.heartbeatAt <= settings.heartbeatGrace
    ? refuse('heartbeat', `heartbeat is younger than heartbeatGrace (${formatDuration(settings.heartbeatGrace)})`)
    : pass();

const oldEnough: DeleteCheck = ({ node, now, settings }) =>
  now - node.createdAt < settings.minNodeAge
    ? refuse('node-age', `node is younger than minNodeAge (${formatDuration(settings.minNodeAge)})`)
    : pass();

/** EC2 reads are eventually consistent: an instance it does not return may be a fresh one. */
const unknownLongEnough: DeleteCheck = ({ pair, node, now, settings }) =>
  pair.instance?.state === undefined && now - node.createdAt < settings.notFoundGrace
    ? refuse(
        'not-found-grace',
        `instance unknown to EC2 for less than notFoundGrace (${formatDuration(settings.notFoundGrace)})`,
      )
    : pass();

/** In the order of docs/design.md §4: the machine is gone, its kubelet silent, the Node old enough, EC2 sure; then the opt-out. */
export const DELETE_CHECKS: readonly DeleteCheck[] = [
  terminated,
  heartbeatStale,
  oldEnough,
  unknownLongEnough,
  notExcluded,
];

/** Why the Node may not be deleted, or undefined when the delete may go ahead (the breaker still bounds it). */
export const deleteRefusal = (subject: DeleteSubject): string | undefined =>
  firstRefusal(DELETE_CHECKS, subject)?.reason;
