/**
 * The partitions the emulator serves, as AWS spells their regions (`regionRegex` of the SDK's
 * partitions.json) and their DNS suffixes. The emulator's own table: it does not borrow the
 * reconciler's, which it is there to hold to AWS.
 */
const PARTITIONS: readonly { readonly id: string; readonly region: RegExp; readonly dnsSuffix: string }[] = [
  { id: 'aws', region: /^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$/, dnsSuffix: 'amazonaws.com' },
  { id: 'aws-cn', region: /^cn-\w+-\d+$/, dnsSuffix: 'amazonaws.com.cn' },
  { id: 'aws-us-gov', region: /^us-gov-\w+-\d+$/, dnsSuffix: 'amazonaws.com' },
  { id: 'aws-eusc', region: /^eusc-(de)-\w+-\d+$/, dnsSuffix: 'amazonaws.eu' },
  { id: 'aws-iso', region: /^us-iso-\w+-\d+$/, dnsSuffix: 'c2s.ic.gov' },
  { id: 'aws-iso-b', region: /^us-isob-\w+-\d+$/, dnsSuffix: 'sc2s.sgov.gov' },
  { id: 'aws-iso-e', region: /^eu-isoe-\w+-\d+$/, dnsSuffix: 'cloud.adc-e.uk' },
  { id: 'aws-iso-f', region: /^us-isof-\w+-\d+$/, dnsSuffix: 'csp.hci.ic.gov' },
];

// The patterns exclude one another: \w takes no dash, so `us-gov-west-1` is no `us-\w+-\d+`.
const partitionOfRegion = (region: string): (typeof PARTITIONS)[number] | undefined =>
  PARTITIONS.find((p) => p.region.test(region));

export const isRegionName = (region: string): boolean => partitionOfRegion(region) !== undefined;

/** The partition a region's ARNs are in (`aws` for a name no partition has). */
export const partitionOf = (region: string): string => partitionOfRegion(region)?.id ?? 'aws';

/** The DNS suffix of a region's endpoints (`amazonaws.com` for a name no partition has). */
export const dnsSuffixOf = (region: string): string => partitionOfRegion(region)?.dnsSuffix ?? 'amazonaws.com';

/** Every partition's DNS suffix: a presigned STS URL may name any of them. */
export const DNS_SUFFIXES: readonly string[] = [...new Set(PARTITIONS.map((p) => p.dnsSuffix))];
