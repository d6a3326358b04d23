/**
 * What an instance id ends with: INSTANCE_ID_PATTERN (packages/model/src/instance-id.ts) ends every id with a lowercase hex digit.
 * Ids that do not are not instance ids to the reconciler (toInstanceView drops them): the
 * partitions below cover exactly the ids it can represent.
 */
const LAST_DIGITS = '0123456789abcdef';

/**
 * `count` disjoint sets of `instance-id` filter values that together match every instance id, so
 * that one DescribeInstances listing can be read as `count` listings at once, each its own chain of
 * pages (a NextToken names the next page of its own listing only, never of another's).
 *
 * Why the id's last digit:
 * - An instance's id never changes, so an instance belongs to one partition for its whole life.
 *   A partition on anything that can change during a sweep (`instance-state-name`, tags) could see
 *   an instance in two partitions, or in none, if it moved between them while they were read: a
 *   running instance that stops mid-sweep would be missed by "running" already read and
 *   "stopped" not yet changed.
 * - `availability-zone` never changes either, but the zones are not known without another call,
 *   and there is no filter for "none of these": an instance in a zone left out would be missed.
 * - The last digit is spread evenly (ids are random; the first digit after `i-` is `0` for every
 *   17-digit id, so it would not split anything).
 *
 * EC2 filter values are globs (`*` any run of characters; the EC2 User Guide's "List and filter
 * your resources"), matched against the whole value: `i-*7` matches the ids that end in 7, and the
 * values of one filter are ORed, so each partition is one filter. Filters of different names are
 * ANDed: a listing's own filters (e.g. `tag-key`) are kept in every partition.
 */
export function instanceIdPartitions(count: number): string[][] {
  if (!Number.isInteger(count) || count < 1 || count > LAST_DIGITS.length)
    throw new Error(`instance id partitions: ${count} is not a count from 1 to ${LAST_DIGITS.length}`);
  const partitions = Array.from({ length: count }, (): string[] => []);
  [...LAST_DIGITS].forEach((digit, index) => partitions[index % count]?.push(`i-*${digit}`));
  return partitions;
}
