import { ZONE_LABEL } from '@ec2-node-reconciler/model/contract/labels.js';

/** What a label value may be (k8s.io/apimachinery validation): a selector with anything else is refused. */
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;

/**
 * The label selectors whose union holds every Node that may be a machine in `zone`: those whose zone
 * label names that zone, and those with no zone label at all (no cloud provider labelled them, or
 * they were made by hand). A Node labelled with another zone is another machine's: the label comes
 * from its own machine. Undefined when `zone` cannot be selected on (unknown, or not a label value):
 * then only every Node will do.
 *
 * What an event about an unmarked machine lists (lib/observe/signals.ts): for a cluster over three
 * zones, a third of the Nodes' bytes sent and read instead of all of them, on every event of the
 * account's other machines (the API server still looks at every Node to select them). A Node whose
 * zone label is empty, or names another zone, is not among them: the next sweep, which lists every
 * Node, links it.
 */
export function zoneCandidateSelectors(zone: string): readonly string[] | undefined {
  if (!LABEL_VALUE.test(zone)) return undefined;
  return [`${ZONE_LABEL}=${zone}`, `!${ZONE_LABEL}`];
}
