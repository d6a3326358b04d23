import { describe, expect, it } from 'vitest';
import { labelSelectorProblem } from '../../cli/kube/label-selector.js';

describe('labelSelectorProblem', () => {
  it('should accept every form of the Kubernetes string syntax', () => {
    for (const selector of [
      'app=web',
      'app==web',
      'app!=web',
      'app',
      '!legacy',
      'app in (web, api)',
      'tier notin (db)',
      'app.kubernetes.io/name=web,tier!=db,!legacy',
      'version>3',
      'empty=',
      '',
    ]) {
      expect(labelSelectorProblem(selector), selector).toBeUndefined();
    }
  });

  it('should say what is wrong with a selector the API server would refuse', () => {
    expect(labelSelectorProblem('app in web')).toMatch(/not a requirement/);
    expect(labelSelectorProblem('app in ()')).toMatch(/needs at least one value/);
    expect(labelSelectorProblem('app=web,,tier=db')).toMatch(/empty requirement/);
    expect(labelSelectorProblem('app=web)')).toBe('unbalanced parentheses');
    expect(labelSelectorProblem('app=-web')).toMatch(/invalid label value "-web"/);
    expect(labelSelectorProblem('Bad_Prefix/app=web')).toMatch(/the prefix must be a DNS subdomain/);
    expect(labelSelectorProblem('version>three')).toMatch(/compares with a whole number/);
  });
});
