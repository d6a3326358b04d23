import { PRODUCT_NAME } from './product.js';

/** Output events on the reconciler's own bus (source and detail-types). */
export const OUTPUT_EVENT_SOURCE = PRODUCT_NAME;
export const OUTPUT_DETAIL_TYPES = [
  'Node Deleted',
  'Node Drained',
  'Drain Failed',
  'Divergence Detected',
  // Repair (docs/design.md §1b): its drain started; it stood down (the group's unhealthy share); the machine was marked Unhealthy for its group to replace.
  'Node Repair Started',
  'Node Repair Blocked',
  'Node Repaired',
] as const;
export type OutputDetailType = (typeof OUTPUT_DETAIL_TYPES)[number];
