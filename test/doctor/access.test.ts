import { describe, expect, it } from 'vitest';
import {
  checkAccess,
  checkAuthenticationMode,
  parseAwsAuth,
  sameRole,
  type AccessEntryFacts,
  type FunctionRole,
} from '../../cli/doctor/access.js';
import { readFailed, readOk } from '../../cli/doctor/check.js';

const ROLE: FunctionRole = {
  label: 'sweep',
  arn: 'arn:aws:iam::111122223333:role/ops/sweep-role',
  functionName: 'sweep-fn',
};
const entry = (overrides: Partial<AccessEntryFacts> = {}): AccessEntryFacts => ({
  type: 'STANDARD',
  kubernetesGroups: ['ec2-node-reconciler'],
  username: 'arn:aws:sts::111122223333:assumed-role/sweep-role/{{SessionName}}',
  ...overrides,
});

describe('checkAuthenticationMode', () => {
  it('should pass the modes with access entries, and CONFIG_MAP saying only aws-auth maps roles', () => {
    expect(checkAuthenticationMode('demo', 'API').status).toBe('pass');
    expect(checkAuthenticationMode('demo', 'API_AND_CONFIG_MAP').status).toBe('pass');
    const configMap = checkAuthenticationMode('demo', 'CONFIG_MAP');
    expect(configMap.status).toBe('pass');
    expect(configMap.detail).toContain('only aws-auth maps roles');
  });
});

describe('checkAccess', () => {
  it('should pass a STANDARD entry in the group and give the identity of the function’s sessions', () => {
    const result = checkAccess({ cluster: 'demo', mode: 'API', role: ROLE, entry: readOk(entry()) });

    expect(result.check.status).toBe('pass');
    expect(result.identity).toEqual({
      user: 'arn:aws:sts::111122223333:assumed-role/sweep-role/sweep-fn',
      groups: ['ec2-node-reconciler'],
      source: 'access entry',
    });
  });

  it('should fail a missing entry with the create-access-entry command', () => {
    const result = checkAccess({ cluster: 'demo', mode: 'API', role: ROLE, entry: readOk(undefined) });

    expect(result.check).toMatchObject({ status: 'fail', check: 'access entry', subject: 'sweep role' });
    expect(result.check.detail).toContain('no access entry');
    expect(result.check.fix).toBe(
      'aws eks create-access-entry --cluster-name demo --principal-arn arn:aws:iam::111122223333:role/ops/sweep-role --type STANDARD --kubernetes-groups ec2-node-reconciler',
    );
    expect(result.identity).toBeUndefined();
  });

  it('should fail an entry in other groups with update-access-entry, and one of another type', () => {
    const groups = checkAccess({
      cluster: 'demo',
      mode: 'API',
      role: ROLE,
      entry: readOk(entry({ kubernetesGroups: ['viewers'] })),
    });
    const type = checkAccess({ cluster: 'demo', mode: 'API', role: ROLE, entry: readOk(entry({ type: 'EC2_LINUX' })) });

    expect(groups.check.status).toBe('fail');
    expect(groups.check.fix).toContain('aws eks update-access-entry');
    expect(type.check.status).toBe('fail');
    expect(type.check.detail).toContain('type EC2_LINUX');
  });

  it('should take an aws-auth mapping (written without the role’s path) where the mode keeps the ConfigMap', () => {
    const awsAuth = readOk([{ rolearn: 'arn:aws:iam::111122223333:role/sweep-role', groups: ['ec2-node-reconciler'] }]);

    const mixed = checkAccess({
      cluster: 'demo',
      mode: 'API_AND_CONFIG_MAP',
      role: ROLE,
      entry: readOk(undefined),
      awsAuth,
    });
    const configMap = checkAccess({ cluster: 'demo', mode: 'CONFIG_MAP', role: ROLE, awsAuth });
    const api = checkAccess({ cluster: 'demo', mode: 'API', role: ROLE, entry: readOk(undefined) });

    expect(mixed.check.status).toBe('pass');
    expect(mixed.identity?.source).toBe('aws-auth');
    expect(configMap.check.status).toBe('pass');
    expect(api.check.status).toBe('fail');
  });

  it('should fail an unmapped role of a CONFIG_MAP cluster with the aws-auth line to add', () => {
    const result = checkAccess({ cluster: 'demo', mode: 'CONFIG_MAP', role: ROLE, awsAuth: readOk([]) });

    expect(result.check.status).toBe('fail');
    expect(result.check.fix).toContain('rolearn: arn:aws:iam::111122223333:role/sweep-role');
  });

  it('should be unknown, not failed, when the entry could not be read', () => {
    const result = checkAccess({
      cluster: 'demo',
      mode: 'API',
      role: ROLE,
      entry: readFailed('AccessDeniedException: no'),
    });

    expect(result.check.status).toBe('unknown');
    expect(result.check.fix).toContain('eks:DescribeAccessEntry');
  });
});

describe('parseAwsAuth', () => {
  it('should read mapRoles, and refuse a line that is not one', () => {
    const data = { mapRoles: '- rolearn: arn:aws:iam::111122223333:role/a\n  username: a\n  groups: [g]\n' };

    expect(parseAwsAuth(data)).toEqual([{ rolearn: 'arn:aws:iam::111122223333:role/a', username: 'a', groups: ['g'] }]);
    expect(parseAwsAuth({})).toEqual([]);
    expect(() => parseAwsAuth({ mapRoles: '- groups: [g]' })).toThrow(/aws-auth mapRoles: 0.rolearn/);
  });

  it('should match roles on account and name, whatever the path', () => {
    expect(sameRole('arn:aws:iam::111122223333:role/a', 'arn:aws:iam::111122223333:role/x/y/a')).toBe(true);
    expect(sameRole('arn:aws:iam::111122223333:role/a', 'arn:aws:iam::444455556666:role/a')).toBe(false);
  });
});
