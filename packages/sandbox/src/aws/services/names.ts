/** The services the emulator speaks, by their SigV4 signing name (the credential scope's service). */
export const SERVICE_NAMES = [
  'ec2',
  'autoscaling',
  'eks',
  'sts',
  'events',
  'states',
  'lambda',
  'cloudformation',
  'iam',
  'sqs',
  'scheduler',
  'logs',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const isServiceName = (value: string): value is ServiceName =>
  (SERVICE_NAMES as readonly string[]).includes(value);

/** Services whose resources are the account's, not a region's: a call signed for any region sees the same ones. */
export const GLOBAL_SERVICES: readonly ServiceName[] = ['iam'];
