import { EXCLUDE_KEY } from '@ec2-node-reconciler/model/contract/labels.js';
import type { ClassifiedPair } from '@ec2-node-reconciler/model/condition.js';
import { pass, refuse, type Check } from './check.js';

/** The one value that opts out; `false` opts back in. */
const EXCLUDED = 'true';
const INCLUDED = 'false';

/**
 * The opt-out: node label or instance tag `ec2-node-reconciler/exclude=true`. Only `true` is honoured:
 * anyone can write a label, and a value nobody defined (`""`, `yes`, `False`) must not quietly stop
 * every delete, drain and lifecycle completion for the Node (see invalidExclusion).
 */
export function exclusionOf(pair: ClassifiedPair): string | undefined {
  if (pair.node?.labels[EXCLUDE_KEY] === EXCLUDED) return `node label ${EXCLUDE_KEY}=${EXCLUDED}`;
  if (pair.instance?.tags[EXCLUDE_KEY] === EXCLUDED) return `instance tag ${EXCLUDE_KEY}=${EXCLUDED}`;
  return undefined;
}

/** Why the pair carries an exclude value that is neither `true` nor `false` (reported, not honoured), or undefined. */
export function invalidExclusion(pair: ClassifiedPair): string | undefined {
  const found = [
    ['node label', pair.node?.labels[EXCLUDE_KEY]],
    ['instance tag', pair.instance?.tags[EXCLUDE_KEY]],
  ].filter(([, value]) => value !== undefined && value !== EXCLUDED && value !== INCLUDED);
  if (found.length === 0) return undefined;
  const said = found.map(([where, value]) => `${where} ${EXCLUDE_KEY}=${JSON.stringify(value)}`).join(' and ');
  return `${said} is not honoured: only "${EXCLUDED}" excludes (set ${EXCLUDE_KEY}=${EXCLUDED} to opt out, or remove it)`;
}

/** The opt-out as a rail (./check.ts), wherever a list of checks has it: an excluded pair is left alone. */
export const notExcluded: Check<{ readonly excluded: string | undefined }, 'excluded'> = ({ excluded }) =>
  excluded ? refuse('excluded', `excluded by ${excluded}`) : pass();
