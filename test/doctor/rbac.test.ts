import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readFailed, readOk } from '../../cli/doctor/check.js';
import { checkRbac, describePermission, requiredPermissions, type AccessReview } from '../../cli/doctor/rbac.js';

const IDENTITY = { user: 'arn:aws:sts::1:assumed-role/r/fn', groups: ['ec2-node-reconciler'] };

describe('requiredPermissions', () => {
  it('should be every verb of the manifest, leases in their namespace, evictions as a subresource', () => {
    const described = requiredPermissions().map(describePermission);

    expect(described).toEqual([
      'get nodes',
      'list nodes',
      'patch nodes',
      'delete nodes',
      'list pods',
      'create pods --subresource=eviction',
      'get daemonsets.apps',
      'create events',
      'get events',
      'patch events',
      'get leases.coordination.k8s.io -n kube-node-lease',
      'list leases.coordination.k8s.io -n kube-node-lease',
    ]);
  });
});

describe('the RBAC check by hand (docs/operations.md)', () => {
  it('should ask kubectl auth can-i exactly what doctor asks: every permission of the manifest, no other', () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const loop = /for check in ([^;]*); do\s+printf [^\n]*kubectl auth can-i/.exec(doc)?.[1] ?? '';

    const asked = [...loop.matchAll(/'([^']+)'/g)].map((m) => m[1]);

    expect(asked).toEqual(requiredPermissions().map(describePermission));
  });
});

describe('checkRbac', () => {
  const allowedAll = requiredPermissions().map((permission) => ({ permission, review: readOk({ allowed: true }) }));

  it('should pass when every permission is allowed', () => {
    const check = checkRbac({ subject: 'sweep role', identity: IDENTITY, reviews: allowedAll });

    expect(check.status).toBe('pass');
    expect(check.detail).toBe('as groups ec2-node-reconciler: all 12 permissions of the manifest allowed');
  });

  it('should fail naming each permission denied, with the manifest to apply', () => {
    const reviews = allowedAll.map((r) =>
      r.permission.verb === 'patch' && r.permission.resource === 'nodes'
        ? { ...r, review: readOk({ allowed: false }) }
        : r,
    );

    const check = checkRbac({ subject: 'sweep role', identity: IDENTITY, reviews });

    expect(check).toMatchObject({ status: 'fail', detail: 'as groups ec2-node-reconciler: denied patch nodes' });
    expect(check.fix).toBe('apply the manifest: npx ec2-node-reconciler rbac | kubectl apply -f -');
  });

  it('should point at the access entry when the identity is not in the reconciler’s group', () => {
    const reviews = allowedAll.map((r) => ({ ...r, review: readOk({ allowed: false }) }));

    const check = checkRbac({ subject: 'sweep role', identity: { user: 'u', groups: ['viewers'] }, reviews });

    expect(check.fix).toContain('not in ec2-node-reconciler');
  });

  it('should be unknown when a review could not be made (impersonation refused)', () => {
    const [first, ...rest] = requiredPermissions();
    if (first === undefined) throw new Error('the manifest grants nothing');
    const reviews = [
      { permission: first, review: readFailed<AccessReview>('HTTP 403 Forbidden') },
      ...allowedAll.slice(1),
    ];
    expect(rest).toHaveLength(11);

    const check = checkRbac({ subject: 'sweep role', identity: IDENTITY, reviews });

    expect(check.status).toBe('unknown');
    expect(check.fix).toContain('impersonate');
  });
});
