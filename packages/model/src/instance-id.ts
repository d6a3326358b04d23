import * as z from 'zod';

/** An EC2 instance id: `i-` and 8 (legacy) or 17 lowercase hex digits. */
export type InstanceId = string & { readonly __brand: 'InstanceId' };

export const INSTANCE_ID_PATTERN = /^i-[0-9a-f]{8}([0-9a-f]{9})?$/;

export function isInstanceId(value: unknown): value is InstanceId {
  return typeof value === 'string' && INSTANCE_ID_PATTERN.test(value);
}

export class InvalidInstanceIdError extends Error {
  constructor(
    readonly value: unknown,
    readonly field?: string,
  ) {
    super(
      `${field ? `${field}: ` : ''}not an EC2 instance id: ${JSON.stringify(value)?.slice(0, 80) ?? String(value)}`,
    );
    this.name = 'InvalidInstanceIdError';
  }
}

/** Narrows a string to an InstanceId or throws; nothing else may reach an API path or a filter. */
export function toInstanceId(value: unknown, field?: string): InstanceId {
  if (!isInstanceId(value)) throw new InvalidInstanceIdError(value, field);
  return value;
}

export const InstanceIdSchema = z
  .string()
  .regex(INSTANCE_ID_PATTERN, { message: 'must be an EC2 instance id (i- and 8 or 17 hex digits)' })
  .transform((s) => s as InstanceId);
