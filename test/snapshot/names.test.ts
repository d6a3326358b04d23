// `snapshot --anonymize`'s renaming (cli/snapshot/names.ts): consistent within a snapshot, collision-free,
// valid where the reconciler parses (instance ids, providerIDs, DNS names), and keeping what is no name.
import { describe, expect, it } from 'vitest';
import { isInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import { parseProviderId } from '@ec2-node-reconciler/model/provider-id.js';
import { anonymizer, keepNames } from '../../cli/snapshot/names.js';

const SECRET = Buffer.alloc(32, 7);
const id = (n: number) => `i-0${n.toString(16).padStart(16, '0')}`;

describe('anonymizer', () => {
  it('should give the same input the same output, and another secret other outputs', () => {
    const names = anonymizer(SECRET);
    expect(names.instanceId(id(1))).toBe(names.instanceId(id(1)));
    expect(names.hostName('ip-10-0-1-1.ec2.internal')).toBe(names.hostName('ip-10-0-1-1.ec2.internal'));
    expect(anonymizer(Buffer.alloc(32, 8)).instanceId(id(1))).not.toBe(names.instanceId(id(1)));
  });

  it('should rename 20,000 instance ids and IPs into distinct valid ones', () => {
    const names = anonymizer(SECRET);
    const ids = new Set<string>();
    const hosts = new Set<string>();
    for (let n = 0; n < 20_000; n++) {
      const renamed = names.instanceId(id(n));
      expect(isInstanceId(renamed), renamed).toBe(true);
      ids.add(renamed);
      hosts.add(names.hostName(`ip-10-${(n >> 16) & 255}-${(n >> 8) & 255}-${n & 255}.ec2.internal`));
    }
    expect(ids.size).toBe(20_000);
    expect(hosts.size).toBe(20_000);
    for (const host of hosts) expect(host).toMatch(/^ip-10-\d{1,3}-\d{1,3}-\d{1,3}\.ec2\.internal$/);
  });

  it('should keep a providerID, a resource-named host and a DNS name pointing at the same renamed instance', () => {
    const names = anonymizer(SECRET);
    const ref = parseProviderId(names.providerId(`aws:///us-east-1a/${id(5)}`));
    expect(ref).toEqual({ kind: 'ec2', zone: 'us-east-1a', instanceId: names.instanceId(id(5)) });
    expect(names.hostName(`${id(5)}.us-east-1.compute.internal`)).toBe(
      `${names.instanceId(id(5))}.us-east-1.compute.internal`,
    );
    expect(names.providerId('eks-hybrid:///us-west-2/my-cluster/mi-0123456789abcdef0')).toMatch(/^eks-hybrid:\/\/\//);
  });

  it("should keep platform facts and the reconciler's marks, and rename the organisation's names", () => {
    const names = anonymizer(SECRET);
    const labels = names.labels({
      'node.kubernetes.io/instance-type': 'm7i.xlarge',
      'topology.kubernetes.io/zone': 'us-east-1a',
      'ec2-node-reconciler/exclude': 'true',
      'kubernetes.io/hostname': 'ip-10-0-1-1.ec2.internal',
      app: 'payments-api',
      'acme.io/team': 'payments',
    });
    expect(labels).toEqual({
      'node.kubernetes.io/instance-type': 'm7i.xlarge',
      'topology.kubernetes.io/zone': 'us-east-1a',
      'ec2-node-reconciler/exclude': 'true',
      'kubernetes.io/hostname': names.hostName('ip-10-0-1-1.ec2.internal'),
      app: names.labelValue('app', 'payments-api'),
      [names.labelKey('acme.io/team')]: names.labelValue('acme.io/team', 'payments'),
    });
    expect(JSON.stringify(labels)).not.toMatch(/payments|acme/);
    expect(names.namespace('kube-system')).toBe('kube-system');
    expect(names.namespace('payments')).not.toBe('payments');
    expect(names.hook('Terminate-LC-Hook')).toBe('Terminate-LC-Hook');
  });

  it('should keep the tags the reconciler reads, renamed, and drop the others', () => {
    const names = anonymizer(SECRET);
    const tags = names.tags(
      {
        'eks:cluster-name': 'shop-prod',
        'kubernetes.io/cluster/shop-prod': 'owned',
        'aws:autoscaling:groupName': 'ng-general',
        'ec2-node-reconciler/decommission': 'retire the m5s',
        Name: 'shop-prod-general',
        CostCenter: '4711',
      },
      'shop-prod',
    );
    const cluster = names.cluster('shop-prod');
    const { 'ec2-node-reconciler/decommission': reason, ...rest } = tags;
    expect(rest).toEqual({
      'eks:cluster-name': cluster,
      [`kubernetes.io/cluster/${cluster}`]: 'owned',
      'aws:autoscaling:groupName': names.group('ng-general'),
    });
    expect(reason).toMatch(/^v-[0-9a-f]{10}$/);
  });

  it("should rename the ids and names inside the reconciler's annotations", () => {
    const names = anonymizer(SECRET);
    const value = `{"instanceId":"${id(3)}","group":"ng-general","hook":"drain-hook","node":"ip-10-0-1-1.ec2.internal"}`;
    const renamed = names.annotationValue(value, {
      node: 'ip-10-0-1-1.ec2.internal',
      cluster: 'shop-prod',
      groups: new Map([['ng-general', ['drain-hook']]]),
    });
    expect(renamed).not.toMatch(/ng-general|drain-hook|ip-10-0-1-1|i-00000000000000003/);
    expect(renamed).toContain(names.instanceId(id(3)));
    expect(renamed).toContain(names.group('ng-general'));
  });
});

describe('keepNames', () => {
  it('should write every name as it is', () => {
    expect(keepNames.tags({ Name: 'x', CostCenter: '1' }, 'c')).toEqual({ Name: 'x', CostCenter: '1' });
    expect(keepNames.hostName('ip-10-0-1-1.ec2.internal')).toBe('ip-10-0-1-1.ec2.internal');
  });
});
