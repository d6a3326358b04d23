/**
 * The AWS partitions and how their region names are spelled, as the SDK's endpoint rules
 * (partitions.json, `regionRegex`) define them: every region name is `<prefix>-<direction>-<n>`
 * with one partition's prefix. Held to the SDK's table in test/model/partition.test.ts.
 */
export interface Partition {
  readonly id: string;
  /** The region-name prefixes of the partition (`us` in `us-east-1`, `eusc-de` in `eusc-de-east-1`). */
  readonly prefixes: readonly string[];
  /** The partition's DNS suffix: `sts.<region>.<dnsSuffix>`. */
  readonly dnsSuffix: string;
}

export const PARTITIONS: readonly Partition[] = [
  { id: 'aws', prefixes: ['us', 'eu', 'ap', 'sa', 'ca', 'me', 'af', 'il', 'mx'], dnsSuffix: 'amazonaws.com' },
  { id: 'aws-cn', prefixes: ['cn'], dnsSuffix: 'amazonaws.com.cn' },
  { id: 'aws-us-gov', prefixes: ['us-gov'], dnsSuffix: 'amazonaws.com' },
  { id: 'aws-eusc', prefixes: ['eusc-de'], dnsSuffix: 'amazonaws.eu' },
  { id: 'aws-iso', prefixes: ['us-iso'], dnsSuffix: 'c2s.ic.gov' },
  { id: 'aws-iso-b', prefixes: ['us-isob'], dnsSuffix: 'sc2s.sgov.gov' },
  { id: 'aws-iso-e', prefixes: ['eu-isoe'], dnsSuffix: 'cloud.adc-e.uk' },
  { id: 'aws-iso-f', prefixes: ['us-isof'], dnsSuffix: 'csp.hci.ic.gov' },
];

const escape = (text: string): string => text.replace(/[-]/g, '\\-');

/** A region name of any partition, as a regular-expression source without anchors. */
export const REGION_SOURCE = `(?:${PARTITIONS.flatMap((p) => p.prefixes)
  .map(escape)
  .join('|')})-[a-z]+-\\d+`;

const REGION_PATTERNS = PARTITIONS.map(
  (p) => [new RegExp(`^(?:${p.prefixes.map(escape).join('|')})-[a-z]+-\\d+$`), p] as const,
);

/** The partition of a region name, or undefined when the name is no AWS region's. */
export function partitionOfRegion(region: string): Partition | undefined {
  // The patterns exclude one another: the direction part has no dash, so `us-gov-west-1` is no `us-<direction>-<n>`.
  return REGION_PATTERNS.find(([pattern]) => pattern.test(region))?.[1];
}
