// EC2's request rate limiting, as AWS documents it ("Request throttling for the Amazon EC2 API",
// https://docs.aws.amazon.com/ec2/latest/devguide/ec2-api-throttling.html): every API has a token
// bucket per account and Region, shared by every caller; each request takes one token; a bucket
// refills at a set rate up to its maximum capacity; a request that finds no token is refused with
// `RequestLimitExceeded` (HTTP 503) and other APIs are not affected. The bucket sizes come from the
// category of the action:
//
// | category                                         | capacity | refill / s |
// |--------------------------------------------------|---------:|-----------:|
// | non-mutating (Describe*, List*, Search*, Get*)   |      100 |         20 |
// | unfiltered and unpaginated non-mutating (below)  |       50 |         10 |
// | mutating                                         |       50 |          5 |
// | uncategorized, each its own (CreateTags …)       |   listed |     listed |
//
// "Unfiltered and unpaginated": DescribeInstances, DescribeInstanceStatus, DescribeNetworkInterfaces,
// DescribeSecurityGroups, DescribeSnapshots, DescribeSpotInstanceRequests and DescribeVolumes asked
// without a filter and without pagination draw on a smaller bucket of their own. TerminateInstances
// also spends one token per instance from a resource bucket (1000, refilling 20 a second).
//
// Tokens refill continuously on the emulator's clock (the sandbox's virtual clock in a simulation,
// the wall clock when served): AWS adds its refill once a second, which allows the same requests
// over any second and at most one second's refill more within one. The sandbox's own copy of AWS's
// table: the product's budgets (packages/model/src/contract/api-budgets.ts) are what this judges, not its input.
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import { AwsError } from './errors.js';

export interface BucketSpec {
  readonly capacity: number;
  readonly refillPerSecond: number;
}

const NON_MUTATING: BucketSpec = { capacity: 100, refillPerSecond: 20 };
const UNFILTERED_UNPAGINATED: BucketSpec = { capacity: 50, refillPerSecond: 10 };
const MUTATING: BucketSpec = { capacity: 50, refillPerSecond: 5 };

/** Actions with their own request bucket (the documented "uncategorized actions" the emulator serves). */
const UNCATEGORIZED: Readonly<Record<string, BucketSpec>> = {
  CreateTags: { capacity: 100, refillPerSecond: 10 },
  DeleteTags: { capacity: 100, refillPerSecond: 10 },
  RunInstances: { capacity: 5, refillPerSecond: 2 },
  StartInstances: { capacity: 5, refillPerSecond: 2 },
  TerminateInstances: { capacity: 100, refillPerSecond: 5 },
};

/** Resource token buckets: one token per instance the call names. */
const RESOURCE_BUCKETS: Readonly<Record<string, BucketSpec>> = {
  RunInstances: { capacity: 1000, refillPerSecond: 2 },
  TerminateInstances: { capacity: 1000, refillPerSecond: 20 },
  StartInstances: { capacity: 1000, refillPerSecond: 2 },
  StopInstances: { capacity: 1000, refillPerSecond: 20 },
};

const SMALLER_WHEN_UNFILTERED = new Set([
  'DescribeInstances',
  'DescribeInstanceStatus',
  'DescribeNetworkInterfaces',
  'DescribeSecurityGroups',
  'DescribeSnapshots',
  'DescribeSpotInstanceRequests',
  'DescribeVolumes',
]);

const NON_MUTATING_PREFIXES = ['Describe', 'List', 'Search', 'Get'];

type Params = Readonly<Record<string, unknown>>;

const given = (value: unknown): boolean =>
  value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);

/** A request without a filter and without pagination (MaxResults or NextToken). */
const unfilteredAndUnpaginated = (params: Params): boolean =>
  !given(params['Filter']) && !given(params['MaxResults']) && !given(params['NextToken']);

/** The request bucket an EC2 action draws on: its name (the key within an account and Region) and its size. */
export function ec2RequestBucket(action: string, params: Params): { readonly name: string; readonly spec: BucketSpec } {
  const own = UNCATEGORIZED[action];
  if (own) return { name: action, spec: own };
  if (SMALLER_WHEN_UNFILTERED.has(action) && unfilteredAndUnpaginated(params))
    return { name: `${action} (unfiltered, unpaginated)`, spec: UNFILTERED_UNPAGINATED };
  if (NON_MUTATING_PREFIXES.some((prefix) => action.startsWith(prefix))) return { name: action, spec: NON_MUTATING };
  return { name: action, spec: MUTATING };
}

/** How many resource tokens a call takes: the instances it names (InstanceId.N, or MinCount for RunInstances). */
function resourceTokens(action: string, params: Params): number {
  if (action === 'RunInstances') {
    const count = Number(params['MinCount'] ?? 1);
    return Number.isFinite(count) && count > 0 ? count : 1;
  }
  const ids = params['InstanceId'];
  return Array.isArray(ids) ? Math.max(1, ids.length) : 1;
}

class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    readonly spec: BucketSpec,
    now: number,
  ) {
    this.tokens = spec.capacity;
    this.at = now;
  }

  /** Tokens in the bucket at `now`. */
  level(now: number): number {
    if (now > this.at) {
      this.tokens = Math.min(this.spec.capacity, this.tokens + ((now - this.at) / 1000) * this.spec.refillPerSecond);
      this.at = now;
    }
    return this.tokens;
  }

  take(count: number): void {
    this.tokens -= count;
  }
}

/** Which account and Region a request is for: each has its own buckets. */
export interface RateScope {
  readonly accountId: string;
  readonly region: string;
}

/** One request the limiter refused: which bucket, when. */
export interface Throttled {
  readonly at: number;
  readonly region: string;
  readonly operation: string;
  readonly bucket: string;
}

/** EC2's token buckets for every account and Region the emulator serves, on its clock. */
export class Ec2RateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();
  /** Every request refused, oldest first. */
  readonly throttled: Throttled[] = [];

  constructor(private readonly clock: Clock) {}

  /**
   * Takes the tokens an EC2 request needs (its request bucket's, and for instance-changing calls
   * their resource bucket's); throws EC2's RequestLimitExceeded when one has too few. A refused
   * request takes nothing. One that may not be refused takes what there is, down to none.
   */
  admit(scope: RateScope, action: string, params: Params, mayRefuse = true): void {
    const now = this.clock.now();
    const request = ec2RequestBucket(action, params);
    const needs: { bucket: TokenBucket; name: string; count: number; kind: 'request' | 'resource' }[] = [
      { bucket: this.bucket(scope, request.name, request.spec, now), name: request.name, count: 1, kind: 'request' },
    ];
    const resource = RESOURCE_BUCKETS[action];
    if (resource) {
      const name = `${action} (resources)`;
      needs.push({
        bucket: this.bucket(scope, name, resource, now),
        name,
        count: resourceTokens(action, params),
        kind: 'resource',
      });
    }
    const short = needs.find((need) => need.bucket.level(now) < need.count);
    if (short && !mayRefuse) {
      for (const need of needs) need.bucket.take(Math.min(need.count, Math.max(0, need.bucket.level(now))));
      return;
    }
    if (short) {
      this.throttled.push({ at: now, region: scope.region, operation: action, bucket: short.name });
      throw requestLimitExceeded(scope.accountId, action, short.kind);
    }
    for (const need of needs) need.bucket.take(need.count);
  }

  private bucket(scope: RateScope, name: string, spec: BucketSpec, now: number): TokenBucket {
    const key = `${scope.accountId}\0${scope.region}\0${name}`;
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = new TokenBucket(spec, now)));
    return bucket;
  }
}

/**
 * EC2's answer to a throttled request: HTTP 503, error code RequestLimitExceeded, in the EC2 query
 * protocol's `<Response><Errors>` (the protocol renders it). The SDKs and the AWS CLI count the
 * code as a throttling error and retry it (adaptive mode also slows the client down).
 */
export function requestLimitExceeded(accountId: string, action: string, kind: 'request' | 'resource'): AwsError {
  return new AwsError(
    'RequestLimitExceeded',
    `Request limit exceeded. Account ${accountId} has been throttled on ec2:${action} because it exceeded its ${kind} rate limit.`,
    503,
  );
}
