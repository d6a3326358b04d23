// The policy diff of `simulate --compare` (policy-diff.ts): counts of the actions taken per node,
// their difference, and which additions are destructive.
import { describe, expect, it } from 'vitest';
import {
  actionLabel,
  addsDestructive,
  countActions,
  DESTRUCTIVE_ACTIONS,
  diffActions,
} from '../../cli/report/policy-diff.js';
import type { ReportAction } from '../../lib/report/report.js';

const action = (a: Partial<ReportAction> & Pick<ReportAction, 'kind'>): ReportAction => ({
  node: 'n1',
  reason: 'because',
  outcome: 'done',
  ...a,
});

describe('policy diff', () => {
  it('should name an action by what it means: drains started or joined, lifecycle actions continued or abandoned, repair steps', () => {
    expect(actionLabel(action({ kind: 'drain', mode: 'start' }))).toBe('drain');
    expect(actionLabel(action({ kind: 'drain', mode: 'join' }))).toBe('drain (join)');
    expect(actionLabel(action({ kind: 'complete-lifecycle', result: 'ABANDON' }))).toBe('complete-lifecycle ABANDON');
    expect(actionLabel(action({ kind: 'complete-lifecycle', result: 'CONTINUE' }))).toBe('complete-lifecycle CONTINUE');
    expect(actionLabel(action({ kind: 'repair', step: 'replace' }))).toBe('repair replace');
    expect(actionLabel(action({ kind: 'taint-shutdown' }))).toBe('taint');
    expect(actionLabel(action({ kind: 'report', condition: 'stale-object' }))).toBeUndefined();
  });

  it('should count only actions taken (done, started, dry run), per node or else per instance', () => {
    const counts = countActions([
      {
        actions: [
          action({ kind: 'cordon' }),
          action({ kind: 'cordon', outcome: 'unchanged' }),
          action({ kind: 'cordon', outcome: 'failed' }),
          action({ kind: 'drain', mode: 'start', outcome: 'started' }),
          action({ kind: 'mark-unhealthy', node: undefined, instanceId: 'i-0123456789abcdef0', outcome: 'dry-run' }),
        ],
      },
      { actions: [action({ kind: 'cordon' })] },
    ]);
    expect(Object.fromEntries([...counts].map(([node, m]) => [node, Object.fromEntries(m)]))).toEqual({
      n1: { cordon: 2, drain: 1 },
      'i-0123456789abcdef0': { 'mark-unhealthy': 1 },
    });
  });

  it('should be empty for the same counts, and name each node’s actions added and removed', () => {
    const a = countActions([{ actions: [action({ kind: 'cordon' }), action({ kind: 'uncordon-own', node: 'n2' })] }]);
    const b = countActions([
      {
        actions: [
          action({ kind: 'cordon' }),
          action({ kind: 'drain', mode: 'start' }),
          action({ kind: 'cordon', node: 'n3' }),
        ],
      },
    ]);
    expect(diffActions(a, a)).toEqual([]);
    expect(addsDestructive(diffActions(a, a))).toBe(false);
    const diff = diffActions(a, b);
    expect(diff).toEqual([
      { node: 'n1', changes: [{ action: 'drain', delta: 1, destructive: true }] },
      { node: 'n2', changes: [{ action: 'uncordon', delta: -1, destructive: false }] },
      { node: 'n3', changes: [{ action: 'cordon', delta: 1, destructive: false }] },
    ]);
    expect(addsDestructive(diff)).toBe(true);
    // Removing a destructive action is no reason to stop a deployment.
    expect(addsDestructive(diffActions(b, a))).toBe(false);
  });

  it('should hold deletes, drains, repair drains and replacements, Unhealthy marks and abandoned lifecycle actions destructive, and nothing reversible', () => {
    expect([...DESTRUCTIVE_ACTIONS].sort()).toEqual(
      ['complete-lifecycle ABANDON', 'delete', 'drain', 'mark-unhealthy', 'repair drain', 'repair replace'].sort(),
    );
    for (const reversible of [
      'cordon',
      'uncordon',
      'taint',
      'untaint',
      'drain (join)',
      'complete-lifecycle CONTINUE',
      'forget-drain',
      'repair cancel',
    ])
      expect(DESTRUCTIVE_ACTIONS.has(reversible)).toBe(false);
  });
});
