// Which zone a scenario's Node is labelled with: the cloud provider labels a Node from its own machine,
// so a Node whose machine it cannot place (a malformed or hybrid providerID, a name no machine answers
// to) carries no zone or region label, and the event path's list of the Nodes a zone allows
// (lib/kube/zone-candidates.ts) still reads it, as it would in a real cluster.
import { describe, expect, it } from 'vitest';
import { buildNode } from '../../src/kube/builders.js';
import { parseScenario } from '../../src/scenario/load.js';
import { nodeSeed } from '../../src/simulate/seed.js';

const START = Date.UTC(2026, 10, 29, 10, 0, 0);

const scenario = parseScenario(
  `
name: zones
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: i-0000000000000000b, state: running, zone: us-east-1b, privateDnsName: ip-10-0-0-11.ec2.internal, tags: { eks:cluster-name: demo } }
nodes:
  - { name: by-provider-id, providerID: "aws:///us-east-1c/i-0000000000000000c", createdAgo: 2h }
  - { name: local-zone, providerID: "aws:///us-east-1-bos-1a/i-0000000000000000e", createdAgo: 2h }
  - { name: ip-10-0-0-11.ec2.internal, createdAgo: 2h }
  - { name: fargate-ip-10-0-0-12.ec2.internal, providerID: "aws:///us-east-1a/0123456789abcdef/fargate-ip-10-0-0-12.ec2.internal", createdAgo: 2h }
  - { name: malformed, providerID: "aws:///not-a-zone/i-0000000000000000d", createdAgo: 2h }
  - { name: hybrid, providerID: "eks-hybrid:///us-east-1/demo/mi-0123456789abcdef0", createdAgo: 2h }
  - { name: nameless, createdAgo: 2h }
  - { name: fargate-bad-zone, providerID: "aws:///garbage/0123456789abcdef/fargate-ip-10-0-0-13.ec2.internal", createdAgo: 2h }
`,
  'zones.yaml',
);

const labelsOf = (name: string) => {
  const node = scenario.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node ${name}`);
  let uid = 0;
  return buildNode(nodeSeed(scenario, node, START), { now: START, uid: () => `uid-${++uid}` }).metadata.labels ?? {};
};

describe('the zone labels of a scenario Node', () => {
  it("should be its machine's: by providerID, by its machine's DNS name, or a Fargate pod's zone", () => {
    expect(labelsOf('by-provider-id')['topology.kubernetes.io/zone']).toBe('us-east-1c');
    expect(labelsOf('ip-10-0-0-11.ec2.internal')['topology.kubernetes.io/zone']).toBe('us-east-1b');
    expect(labelsOf('fargate-ip-10-0-0-12.ec2.internal')).toMatchObject({
      'topology.kubernetes.io/zone': 'us-east-1a',
      'topology.kubernetes.io/region': 'us-east-1',
    });
  });

  it("should give a Local Zone's Node its parent region, as the cloud provider does", () => {
    expect(labelsOf('local-zone')).toMatchObject({
      'topology.kubernetes.io/zone': 'us-east-1-bos-1a',
      'topology.kubernetes.io/region': 'us-east-1',
      'failure-domain.beta.kubernetes.io/region': 'us-east-1',
    });
  });

  it('should be none when no machine places it (a malformed or hybrid providerID, a name no machine answers to, a Fargate providerID whose zone is none)', () => {
    for (const name of ['malformed', 'hybrid', 'nameless', 'fargate-bad-zone']) {
      const zoneLabels = Object.keys(labelsOf(name)).filter((key) => /zone|region/.test(key));
      expect(zoneLabels, name).toEqual([]);
    }
  });
});
