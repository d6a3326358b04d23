import { EXCLUDE_KEY } from '../contract/labels.js';
import type { ClassifiedPair } from '../model/condition.js';

/**
 * The opt-out: node label or instance tag `ec2-node-reconciler/exclude`. Any value but "false"
 * excludes, so `exclude=""` and `exclude=true` both work as operators expect.
 */
export function exclusionOf(pair: ClassifiedPair): string | undefined {
  const label = pair.node?.labels[EXCLUDE_KEY];
  if (label !== undefined && label !== 'false') return `node label ${EXCLUDE_KEY}=${label}`;
  const tag = pair.instance?.tags[EXCLUDE_KEY];
  if (tag !== undefined && tag !== 'false') return `instance tag ${EXCLUDE_KEY}=${tag}`;
  return undefined;
}
