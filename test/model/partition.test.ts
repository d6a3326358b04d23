import { describe, expect, it } from 'vitest';
import { partition } from '@aws-sdk/core/client';
import { PARTITIONS, partitionOfRegion } from '@ec2-node-reconciler/model/partition.js';
import { parseProviderId, regionOfZone } from '@ec2-node-reconciler/model/provider-id.js';

/** A region of every partition the SDK's endpoint rules know, and more than one of the largest. */
const REGIONS = [
  'us-east-1',
  'eu-west-1',
  'ap-southeast-7',
  'mx-central-1',
  'il-central-1',
  'af-south-1',
  'cn-north-1',
  'cn-northwest-1',
  'us-gov-west-1',
  'us-gov-east-1',
  'eusc-de-east-1',
  'us-iso-east-1',
  'us-iso-west-1',
  'us-isob-east-1',
  'eu-isoe-west-1',
  'us-isof-south-1',
  'us-isof-east-1',
];

describe('partitionOfRegion', () => {
  it.each(REGIONS)('should place %s in the partition the SDK places it in', (region) => {
    const sdk = partition(region);
    expect(partitionOfRegion(region)).toMatchObject({ id: sdk.name, dnsSuffix: sdk.dnsSuffix });
  });

  it('should know every partition the SDK knows, and no other', () => {
    const sdkPartitions = new Set(REGIONS.map((r) => partition(r).name));
    expect(new Set(PARTITIONS.map((p) => p.id))).toEqual(sdkPartitions);
  });

  it.each(['useast-1', 'xx-east-1', 'eusc-fr-east-1', 'us-east', ''])('should refuse %s as no region name', (name) => {
    expect(partitionOfRegion(name)).toBeUndefined();
  });
});

describe('availability zones of every partition', () => {
  it.each(REGIONS)('should parse the zones of %s, standard, Local and Wavelength', (region) => {
    for (const zone of [`${region}a`, `${region}-bos-1a`, `${region}-wl1-bos-wlz-1`]) {
      expect(regionOfZone(zone)).toBe(region);
      expect(parseProviderId(`aws:///${zone}/i-0123456789abcdef0`)).toEqual({
        kind: 'ec2',
        zone,
        instanceId: 'i-0123456789abcdef0',
      });
    }
  });
});
