import { AwsError } from '../errors.js';
import type { InstanceRecord } from '../state/instances.js';
import { STATE_CODES } from '../state/instances.js';

export interface FilterInput {
  readonly name: string;
  readonly values: readonly string[];
}

/** What a filter reads from an instance: one value, several (any may match), or none. */
type Extract = (instance: InstanceRecord) => readonly string[];

/** EC2 filter values are case-sensitive globs: `*` any run of characters, `?` one character. */
function glob(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[\\s\\S]*')
    .replace(/\?/g, '[\\s\\S]');
  return new RegExp(`^${body}$`);
}

/** An instance matches when every filter matches; a filter matches when any value matches any extracted string. */
export function compileFilters(
  filters: readonly FilterInput[],
  extractors: (name: string) => Extract | undefined,
): (instance: InstanceRecord) => boolean {
  const compiled = filters.map((filter) => {
    const extract = extractors(filter.name);
    if (!extract) throw new AwsError('InvalidParameterValue', `The filter '${filter.name}' is invalid`);
    // Plain values (the common case: 200 instance ids) match through a set; only globs need a RegExp.
    const exact = new Set(filter.values.filter((v) => !/[*?]/.test(v)));
    const patterns = filter.values.filter((v) => /[*?]/.test(v)).map(glob);
    return (instance: InstanceRecord): boolean =>
      extract(instance).some((value) => exact.has(value) || patterns.some((p) => p.test(value)));
  });
  return (instance) => compiled.every((matches) => matches(instance));
}

const one = (value: string | undefined): readonly string[] => (value === undefined || value === '' ? [] : [value]);

/** What a terminated instance no longer has: its network interface, so no private DNS name or IP. */
export const privateDnsNameOf = (i: InstanceRecord): string => (i.state === 'terminated' ? '' : i.privateDnsName);
export const privateIpOf = (i: InstanceRecord): string | undefined =>
  i.state === 'terminated' ? undefined : i.privateIpAddress;

/** DescribeInstances filters the reconciler (and a reasonable operator) uses. */
export function instanceFilter(name: string): Extract | undefined {
  if (name.startsWith('tag:')) {
    const key = name.slice(4);
    return (i) => one(i.tags.get(key));
  }
  switch (name) {
    case 'instance-id':
      return (i) => [i.id];
    case 'private-dns-name':
      return (i) => one(privateDnsNameOf(i));
    case 'private-ip-address':
      return (i) => one(privateIpOf(i));
    case 'instance-state-name':
      return (i) => [i.state];
    case 'instance-state-code':
      return (i) => [String(STATE_CODES[i.state])];
    case 'availability-zone':
      return (i) => [i.zone];
    case 'instance-type':
      return (i) => [i.instanceType];
    case 'instance-lifecycle':
      return (i) => (i.spotInstanceRequestId ? ['spot'] : []);
    case 'reservation-id':
      return (i) => [i.reservationId];
    case 'vpc-id':
      return (i) => [i.vpcId];
    case 'subnet-id':
      return (i) => [i.subnetId];
    case 'tag-key':
      return (i) => [...i.tags.keys()];
    case 'tag-value':
      return (i) => [...i.tags.values()];
    default:
      return undefined;
  }
}
