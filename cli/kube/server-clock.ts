// The API server's clock. The reconciler compares Lease renewals and Ready heartbeats, which the
// kubelets write in the cluster's time, with "now": a machine whose clock is off by minutes would
// take live nodes for silent ones. The CLI therefore measures the API server's clock (the Date
// header every API server sends) and, when it differs from the local one by more than a few seconds,
// works on the server's time. A served sandbox, whose clock runs on from its scenario's end, is
// followed the same way.
import * as z from 'zod';
import { systemClock, type Clock } from '@ec2-node-reconciler/model/clock.js';
import { KubeClient, type KubeConnection } from '../../lib/kube/client.js';

/** Differences under this are the Date header's whole-second resolution and network latency, not skew. */
export const CLOCK_SKEW_TOLERANCE_MS = 5_000;

/** A clock that reads another's time plus an offset (zero until one is set). */
export class OffsetClock implements Clock {
  offsetMs = 0;

  constructor(private readonly base: Clock = systemClock) {}

  now(): number {
    return this.base.now() + this.offsetMs;
  }
}

/**
 * How far the API server's clock is ahead of `local` (negative: behind), from the Date header of one
 * GET /version; undefined when the server sends none. The header has whole seconds, so the server's
 * time is taken as the middle of its second, compared with the middle of the round trip.
 */
export async function serverClockOffset(
  connection: KubeConnection,
  local: Clock = systemClock,
): Promise<number | undefined> {
  let date: string | undefined;
  let receivedAt = 0;
  const client = new KubeClient(connection, {
    retries: 0,
    timeoutMs: 10_000,
    onResponse: ({ headers }) => {
      receivedAt = local.now();
      date = headers.date;
    },
  });
  const sentAt = local.now();
  try {
    await client.call({ method: 'GET', path: '/version' }, z.unknown());
  } catch {
    // A refusal (401, 403) still says what time it is.
  }
  const server = date === undefined ? Number.NaN : Date.parse(date);
  if (Number.isNaN(server)) return undefined;
  return server + 500 - (sentAt + receivedAt) / 2;
}
