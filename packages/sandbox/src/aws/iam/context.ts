// Building the condition keys of a request from what the emulator knows about it.
import type { ContextValue } from './conditions.js';

/**
 * The tags of the resource a call acts on, under both names IAM gives them: the global
 * `aws:ResourceTag/<key>` and the service's own (`autoscaling:ResourceTag/<key>`,
 * `ec2:ResourceTag/<key>`), which the Service Authorization Reference lists for tagged resources.
 */
export function resourceTagKeys(service: string, tags: Readonly<Record<string, string>>): Record<string, ContextValue> {
  const keys: Record<string, ContextValue> = {};
  for (const [key, value] of Object.entries(tags)) {
    keys[`aws:ResourceTag/${key}`] = value;
    keys[`${service}:ResourceTag/${key}`] = value;
  }
  return keys;
}

/** The tags a call sets (CreateTags, a Create… with tags): `aws:RequestTag/<key>` each, and `aws:TagKeys` (multivalued). */
export function requestTagKeys(tags: Readonly<Record<string, string>>): Record<string, ContextValue> {
  const keys: Record<string, ContextValue> = { 'aws:TagKeys': Object.keys(tags) };
  for (const [key, value] of Object.entries(tags)) keys[`aws:RequestTag/${key}`] = value;
  return keys;
}
