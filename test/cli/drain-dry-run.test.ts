// The first line of `drain NODE --dry-run`: whether the drain would cordon the node, and whether it would
// take over a cordon the reconciler made (cordonPatch with by: 'operator' decides the same way).
import { describe, expect, it } from 'vitest';
import {
  CORDON_REASON_ANNOTATION,
  CORDONED_BY_ANNOTATION,
  CORDONED_BY_OPERATOR_VALUE,
  CORDONED_BY_VALUE,
  FIELD_MANAGER,
} from '@ec2-node-reconciler/model/contract/labels.js';
import { formatDryRun } from '../../cli/run/drain.js';
import { cordonPatch } from '../../lib/kube/node-writes.js';
import { aNode, NOW } from '../support/world.js';

const NO_PODS = { toEvict: [], skipped: [], waiting: [], refused: [] };
const FLAGS = { dryRun: true };
const firstLine = (node: ReturnType<typeof aNode>) => formatDryRun(node, NO_PODS, FLAGS).split('\n')[0];
/** Whether the real drain's cordon would make the cordon the operator's. */
const takesOver = (node: ReturnType<typeof aNode>) =>
  cordonPatch(node, { reason: 'manual drain', by: 'operator' }, NOW)?.annotations?.[CORDONED_BY_ANNOTATION] ===
  CORDONED_BY_OPERATOR_VALUE;

const ours = (reason: string | undefined, writers: readonly string[] = [FIELD_MANAGER]) =>
  aNode(1, {
    name: 'n',
    unschedulable: true,
    cordonWriters: writers,
    annotations: {
      [CORDONED_BY_ANNOTATION]: CORDONED_BY_VALUE,
      ...(reason !== undefined ? { [CORDON_REASON_ANNOTATION]: reason } : {}),
    },
  });

describe('drain --dry-run, its first line', () => {
  it('should say the drain would take over a cordon the reconciler made, with its reason on one line', () => {
    expect(firstLine(ours('Spot interruption\nwarning'))).toBe(
      'node/n is cordoned already, by the reconciler (Spot interruption warning): the drain would make that cordon yours, and no sweep would undo it (dry run: nothing is changed)',
    );
    expect(firstLine(ours(undefined))).toContain('by the reconciler (no reason given)');
    expect(firstLine(ours(''))).toContain('by the reconciler (no reason given)');
    expect(takesOver(ours('Spot interruption warning'))).toBe(true);
  });

  it('should not say so when someone else wrote the cordon since, whatever our annotation still says', () => {
    const stale = ours('Spot interruption warning', ['kubectl-cordon']);
    expect(firstLine(stale)).toBe('node/n is cordoned already (dry run: nothing is changed)');
    expect(takesOver(stale)).toBe(false);
  });

  it('should say whether the node would be cordoned at all', () => {
    expect(firstLine(aNode(1, { name: 'n' }))).toBe('node/n would be cordoned (dry run: nothing is changed)');
    expect(firstLine(aNode(1, { name: 'n', unschedulable: true, cordonWriters: ['kubectl-cordon'] }))).toBe(
      'node/n is cordoned already (dry run: nothing is changed)',
    );
  });
});
