/**
 * The kubelet's Lease duration (leaseDurationSeconds, 40 s by default): a heartbeat younger than
 * this means a kubelet is alive right now. It is also the least `heartbeatGrace` may be: a grace
 * shorter than one Lease period would call a live kubelet stale between two renewals.
 */
export const LEASE_DURATION_MS = 40_000;
