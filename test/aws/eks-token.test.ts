import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { partition } from '@aws-sdk/core/client';
import { createEksToken, decodeEksToken, EksTokenSource, stsHost, TOKEN_REFRESH_MS } from '../../lib/aws/eks-token.js';
import { VirtualClock } from '@ec2-node-reconciler/model/clock.js';

// Produced by scripts/eks-token-vector.py with botocore for fixed credentials and time.
const vector = JSON.parse(readFileSync(new URL('../fixtures/eks/token-vector.json', import.meta.url), 'utf8')) as {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  cluster: string;
  time: string;
  presignedUrl: string;
  token: string;
};

const options = (clock: VirtualClock) => ({
  cluster: vector.cluster,
  region: vector.region,
  credentials: { accessKeyId: vector.accessKeyId, secretAccessKey: vector.secretAccessKey },
  clock,
});

describe('EKS token', () => {
  it('should equal what botocore computes for the same credentials and time', async () => {
    const token = await createEksToken(options(new VirtualClock(Date.parse(vector.time))));
    expect(decodeEksToken(token).href).toBe(vector.presignedUrl);
    expect(token).toBe(vector.token);
  });

  it('should sign the x-k8s-aws-id header and expire in 60 seconds', async () => {
    const url = decodeEksToken(await createEksToken(options(new VirtualClock(Date.parse(vector.time)))));
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(url.searchParams.get('Action')).toBe('GetCallerIdentity');
  });

  it('should reuse a token within 14 minutes and regenerate it after', async () => {
    const clock = new VirtualClock(Date.parse(vector.time));
    const source = new EksTokenSource(options(clock));
    const first = await source.token();
    clock.advance(TOKEN_REFRESH_MS - 1_000);
    expect(await source.token()).toBe(first);
    clock.advance(2_000);
    expect(await source.token()).not.toBe(first);
  });

  it('should regenerate after invalidate', async () => {
    const clock = new VirtualClock(Date.parse(vector.time));
    const source = new EksTokenSource(options(clock));
    const first = await source.token();
    clock.advance(1_000);
    source.invalidate();
    expect(await source.token()).not.toBe(first);
  });
});

describe('the STS host of the EKS token', () => {
  it.each([
    ['us-east-1', 'sts.us-east-1.amazonaws.com'],
    ['eu-west-1', 'sts.eu-west-1.amazonaws.com'],
    ['us-gov-west-1', 'sts.us-gov-west-1.amazonaws.com'],
    ['cn-north-1', 'sts.cn-north-1.amazonaws.com.cn'],
    ['cn-northwest-1', 'sts.cn-northwest-1.amazonaws.com.cn'],
    ['eusc-de-east-1', 'sts.eusc-de-east-1.amazonaws.eu'],
    ['us-iso-east-1', 'sts.us-iso-east-1.c2s.ic.gov'],
    ['us-isob-east-1', 'sts.us-isob-east-1.sc2s.sgov.gov'],
    ['eu-isoe-west-1', 'sts.eu-isoe-west-1.cloud.adc-e.uk'],
    ['us-isof-south-1', 'sts.us-isof-south-1.csp.hci.ic.gov'],
  ])('should presign against the regional endpoint of the partition of %s', async (region, host) => {
    expect(stsHost(region)).toBe(host);
    // The SDK's own endpoint rules agree (its partitions.json is the source of the table).
    expect(`sts.${region}.${partition(region).dnsSuffix}`).toBe(host);
    const token = await createEksToken({
      cluster: 'demo',
      region,
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
      clock: new VirtualClock(Date.parse(vector.time)),
    });
    const url = decodeEksToken(token);
    expect(url.host).toBe(host);
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(new RegExp(`/${region}/sts/aws4_request$`));
  });

  it('should not mistake a commercial region for an ISO one by its prefix', () => {
    expect(stsHost('us-isolated-1')).toBe('sts.us-isolated-1.amazonaws.com');
    expect(partition('us-isolated-1').dnsSuffix).toBe('amazonaws.com');
  });
});
