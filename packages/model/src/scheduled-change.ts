import type { ScheduledEventCode } from './observation.js';

/**
 * What a scheduled EC2 change means for the machine's Node (docs/design.md §2): `removal` (retirement,
 * stop: the machine goes) or `maintenance` (reboot, system maintenance: the machine comes back).
 * The event path (AWS Health type codes) and the sweep (DescribeInstanceStatus codes) read this
 * one table, so a code can never mean removal on one path and maintenance on the other.
 */
export type ScheduledChangeClass = 'removal' | 'maintenance';

/** DescribeInstanceStatus event codes, each with its class. */
export const INSTANCE_STATUS_EVENT_CLASSES = {
  'instance-retirement': 'removal',
  'instance-stop': 'removal',
  'instance-reboot': 'maintenance',
  'system-reboot': 'maintenance',
  'system-maintenance': 'maintenance',
} as const satisfies Record<ScheduledEventCode, ScheduledChangeClass>;

/**
 * AWS Health EC2 type codes (`AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED`,
 * `AWS_EC2_INSTANCE_REBOOT_MAINTENANCE_SCHEDULED`, `AWS_EC2_SYSTEM_MAINTENANCE_EVENT`, …) by the
 * words AWS builds them from. Removal words are tried first: a code that says the machine stops or
 * retires is a removal whatever else it says.
 */
const HEALTH_CODE_WORDS: readonly (readonly [RegExp, ScheduledChangeClass])[] = [
  [/RETIRE|_STOP_|_STOP$|TERMINAT/, 'removal'],
  [/REBOOT|MAINTENANCE/, 'maintenance'],
];

function isInstanceStatusCode(code: string): code is ScheduledEventCode {
  return Object.hasOwn(INSTANCE_STATUS_EVENT_CLASSES, code);
}

/**
 * The class of a scheduled change, from a DescribeInstanceStatus code or an AWS Health EC2 type
 * code; undefined for a code that names neither (acting on a change nobody can name would be a guess).
 */
export function scheduledChangeClass(code: string): ScheduledChangeClass | undefined {
  if (isInstanceStatusCode(code)) return INSTANCE_STATUS_EVENT_CLASSES[code];
  if (!code.startsWith('AWS_EC2_')) return undefined;
  return HEALTH_CODE_WORDS.find(([words]) => words.test(code))?.[1];
}
