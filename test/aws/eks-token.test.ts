import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEksToken, decodeEksToken, EksTokenSource, TOKEN_REFRESH_MS } from '../../lib/aws/eks-token.js';
import { VirtualClock } from '../../lib/model/clock.js';

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
