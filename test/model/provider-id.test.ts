import { describe, expect, it } from 'vitest';
import { isInstanceId, InvalidInstanceIdError, toInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import {
  ec2InstanceIdOf,
  instanceIdOfNodeName,
  MalformedProviderIdError,
  parseProviderId,
  regionOfZone,
} from '@ec2-node-reconciler/model/provider-id.js';

describe('parseProviderId', () => {
  it.each([
    ['aws:///us-east-1a/i-0123456789abcdef0', 'us-east-1a', 'i-0123456789abcdef0'],
    ['aws:///eu-west-1c/i-b188560f', 'eu-west-1c', 'i-b188560f'],
    ['aws:///us-gov-west-1a/i-0123456789abcdef0', 'us-gov-west-1a', 'i-0123456789abcdef0'],
    ['aws:///us-east-1-bos-1a/i-0123456789abcdef0', 'us-east-1-bos-1a', 'i-0123456789abcdef0'],
    ['aws:///us-east-1-wl1-bos-wlz-1/i-0123456789abcdef0', 'us-east-1-wl1-bos-wlz-1', 'i-0123456789abcdef0'],
    ['aws:///cn-northwest-1b/i-0123456789abcdef0', 'cn-northwest-1b', 'i-0123456789abcdef0'],
    ['aws:///us-isob-east-1a/i-0123456789abcdef0', 'us-isob-east-1a', 'i-0123456789abcdef0'],
  ])('should read %s as an EC2 instance', (providerID, zone, instanceId) => {
    expect(parseProviderId(providerID)).toEqual({ kind: 'ec2', zone, instanceId });
  });

  it.each([
    ['aws:///us-east-1a/2bd3f8a1c2/fargate-ip-192-168-1-10.ec2.internal', 'fargate'],
    ['eks-hybrid:///us-west-2/my-cluster/mi-0123456789abcdef0', 'eks-hybrid'],
    ['gce://my-project/us-central1-a/node-1', 'other'],
    ['kind://docker/kind/kind-control-plane', 'other'],
  ])('should read %s as not-ec2 (%s)', (providerID, platform) => {
    expect(parseProviderId(providerID)).toEqual({ kind: 'not-ec2', platform, raw: providerID });
  });

  it.each([
    ['', /no scheme/],
    ['i-0123456789abcdef0', /no scheme/],
    ['aws://us-east-1a/i-0123456789abcdef0', /expected aws:\/\/\//],
    ['aws:///us-east-1a/', /not an instance id/],
    ['aws:///us-east-1a/i-0123456789ABCDEF0', /not an instance id/],
    ['aws:///us-east-1a/i-0123', /not an instance id/],
    ['aws:///us-east-1a/i-0123456789abcdef0/extra', /expected/],
    ['aws:///../i-0123456789abcdef0', /not an availability zone/],
    ['aws:///us-east-1a/i-0123456789abcdef0?x=1', /not an instance id/],
  ])('should reject %j with a typed error, never a guess', (providerID, why) => {
    expect(() => parseProviderId(providerID)).toThrow(MalformedProviderIdError);
    expect(() => parseProviderId(providerID)).toThrow(why);
  });
});

describe('regionOfZone', () => {
  it.each([
    ['us-east-1a', 'us-east-1'],
    ['us-east-1-bos-1a', 'us-east-1'],
    ['us-west-2-lax-1b', 'us-west-2'],
    ['us-east-1-wl1-bos-wlz-1', 'us-east-1'],
    ['ap-northeast-1-wl1-kix-wlz-1', 'ap-northeast-1'],
    ['us-gov-west-1a', 'us-gov-west-1'],
    ['cn-north-1a', 'cn-north-1'],
    ['eu-isoe-west-1a', 'eu-isoe-west-1'],
  ])('should find the region of %s: %s', (zone, region) => {
    expect(regionOfZone(zone)).toBe(region);
  });

  it.each(['us-east-1', 'use1-az1', 'us-east-1-', '../x', 'US-EAST-1A', ''])('should find no region in %j', (zone) => {
    expect(regionOfZone(zone)).toBeUndefined();
  });
});

describe('instanceIdOfNodeName', () => {
  it('should read the instance of a resource-based hostname, and nothing from an IP-based one', () => {
    expect(instanceIdOfNodeName('i-0123456789abcdef0.ec2.internal')).toBe('i-0123456789abcdef0');
    expect(instanceIdOfNodeName('i-0123456789abcdef0.us-west-2.compute.internal')).toBe('i-0123456789abcdef0');
    expect(instanceIdOfNodeName('ip-10-0-0-1.ec2.internal')).toBeUndefined();
    expect(instanceIdOfNodeName('i-0123.ec2.internal')).toBeUndefined();
  });
});

describe('instance ids', () => {
  it.each(['i-b188560f', 'i-0123456789abcdef0'])('should accept %s', (id) => {
    expect(isInstanceId(id)).toBe(true);
    expect(toInstanceId(id)).toBe(id);
  });

  it.each([
    'i-',
    'i-123',
    'i-0123456789abcdef',
    'i-0123456789abcdef00',
    'i-B188560F',
    'I-b188560f',
    'i-b188560f/../nodes',
    ' i-b188560f',
    'i-b188560f\n',
    42,
    null,
  ])('should reject %j', (id) => {
    expect(isInstanceId(id)).toBe(false);
    expect(() => toInstanceId(id, 'detail.instance-id')).toThrow(InvalidInstanceIdError);
    expect(() => toInstanceId(id, 'detail.instance-id')).toThrow(/detail\.instance-id/);
  });
});

describe('ec2InstanceIdOf', () => {
  it('should name the instance of an EC2 providerID, and nothing for others or malformed ones', () => {
    expect(ec2InstanceIdOf('aws:///us-east-1a/i-0123456789abcdef0')).toBe('i-0123456789abcdef0');
    expect(ec2InstanceIdOf('aws:///us-east-1a/2bd3f8a1c2/fargate-ip-192-168-1-10.ec2.internal')).toBeUndefined();
    expect(ec2InstanceIdOf('aws:///us-east-1a/i-zzz')).toBeUndefined();
    expect(ec2InstanceIdOf('')).toBeUndefined();
  });
});
