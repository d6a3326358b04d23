import { createHash } from 'node:crypto';
import * as z from 'zod';
import { PRODUCT_NAME } from '@ec2-node-reconciler/model/contract/product.js';
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import { httpStatus, KubeApiError, kubePath, type KubeClient } from './client.js';
import { IgnoredAnswer } from './schemas.js';

export const EVENT_COMPONENT = PRODUCT_NAME;

/** Node Events live in the `default` namespace, as the kubelet's own do. */
export const EVENT_NAMESPACE = 'default';

export interface NodeEvent {
  readonly node: string;
  readonly uid?: string;
  /** CamelCase reason, one of the reasons listed in docs/observability.md. */
  readonly reason: string;
  readonly message: string;
  readonly type: 'Normal' | 'Warning';
  /** Made once: a repeat that finds the Event there leaves it as it is (no count, no new message). */
  readonly once?: true;
}

/** The longest object name the API server takes (a DNS subdomain). */
const MAX_NAME = 253;
/** Hex digits of the key's hash in an Event's name: as many as client-go's `<name>.<%x of UnixNano>`. */
const HASH_DIGITS = 16;

/**
 * What makes two Events one, as client-go's EventAggregator keys them: the object (kind, name, uid),
 * who reports (our component), the type and the reason. The message is not part of it: a divergence
 * reported every sweep ("last heartbeat 23m ago", then "30m ago") is one Event counted again, showing
 * the latest message, as `kubectl describe node` shows the kubelet's repeated Events ("x5 over 50m").
 */
export function eventKey(event: NodeEvent): string {
  return JSON.stringify(['Node', event.node, event.uid ?? '', EVENT_COMPONENT, event.type, event.reason]);
}

/**
 * The Event's name, deterministic from its key (`<node>.<hash>`), so that every run, in any
 * container, finds the one object to count a repeat on. A node name too long to take the suffix is
 * cut (names are DNS subdomains: a cut never ends in `.` or `-`).
 */
export function eventName(event: NodeEvent): string {
  const hash = createHash('sha256').update(eventKey(event)).digest('hex').slice(0, HASH_DIGITS);
  const room = MAX_NAME - HASH_DIGITS - 1;
  const prefix = event.node.length > room ? event.node.slice(0, room).replace(/[.-]+$/, '') : event.node;
  return `${prefix}.${hash}`;
}

/** The fields of a stored Event that counting a repeat reads. */
const StoredEventSchema = z.object({
  metadata: z.object({ resourceVersion: z.string().optional() }).default({}),
  count: z.number().int().nullish(),
});

/** Reads and patches of an Event that changes under us (another run counting the same repeat) before giving up. */
export const EVENT_UPDATE_ATTEMPTS = 3;

/** metav1.Time is RFC 3339 to the second. */
const metaTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

const isAlreadyExists = (error: unknown): boolean =>
  error instanceof KubeApiError && error.status === 409 && error.details.reason === 'AlreadyExists';

/**
 * Kubernetes Events on the Node, where `kubectl describe node` shows them, aggregated as client-go's
 * EventCorrelator and the kubelet do: the first occurrence creates the Event under its deterministic
 * name (count 1); a repeat finds it there (409 AlreadyExists), reads it and patches `count` + 1,
 * `lastTimestamp` and the message, guarded by the resourceVersion it read, so that two runs counting
 * at once both count (the loser of the race reads again). An Event that expired between the create
 * and the read (the API server's event TTL) is created afresh.
 */
export class NodeEventRecorder {
  constructor(
    private readonly kube: KubeClient,
    private readonly clock: Clock,
  ) {}

  async record(event: NodeEvent): Promise<void> {
    const name = eventName(event);
    const now = metaTime(this.clock.now());
    // The API server caps messages at 1 KiB.
    const message = event.message.slice(0, 1024);
    const body = {
      metadata: { name, namespace: EVENT_NAMESPACE },
      involvedObject: { apiVersion: 'v1', kind: 'Node', name: event.node, ...(event.uid ? { uid: event.uid } : {}) },
      reason: event.reason,
      message,
      type: event.type,
      source: { component: EVENT_COMPONENT },
      reportingComponent: EVENT_COMPONENT,
      reportingInstance: EVENT_COMPONENT,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    if ((await this.create(body)) || event.once) return;
    for (let attempt = 1; attempt <= EVENT_UPDATE_ATTEMPTS; attempt++) {
      const stored = await this.read(name);
      if (stored === undefined) {
        if (await this.create(body)) return;
        continue;
      }
      if (await this.countRepeat(name, stored, { message, lastTimestamp: now })) return;
    }
    throw new Error(
      `recording event ${event.reason} on ${event.node}: ${name} changed under every one of ${EVENT_UPDATE_ATTEMPTS} updates`,
    );
  }

  /** Creates the Event; false when one of that name exists. */
  private async create(body: Record<string, unknown>): Promise<boolean> {
    try {
      await this.kube.call({ method: 'POST', path: this.path(), body }, IgnoredAnswer);
      return true;
    } catch (error) {
      if (isAlreadyExists(error)) return false;
      throw error;
    }
  }

  /** The stored Event, or undefined when it is gone (expired). */
  private async read(name: string): Promise<z.output<typeof StoredEventSchema> | undefined> {
    try {
      return await this.kube.call({ method: 'GET', path: this.path(name) }, StoredEventSchema);
    } catch (error) {
      if (httpStatus(error) === 404) return undefined;
      throw error;
    }
  }

  /** Counts one more occurrence on the Event as read; false when it changed since (409) or went (404). */
  private async countRepeat(
    name: string,
    stored: z.output<typeof StoredEventSchema>,
    update: { readonly message: string; readonly lastTimestamp: string },
  ): Promise<boolean> {
    const { resourceVersion } = stored.metadata;
    const body = {
      // The precondition: a patch of an Event another run counted on since is refused, never lost.
      metadata: resourceVersion !== undefined ? { resourceVersion } : {},
      count: (stored.count ?? 1) + 1,
      ...update,
    };
    try {
      await this.kube.call(
        { method: 'PATCH', path: this.path(name), body, contentType: 'application/merge-patch+json' },
        IgnoredAnswer,
      );
      return true;
    } catch (error) {
      const status = httpStatus(error);
      if (status === 409 || status === 404) return false;
      throw error;
    }
  }

  private path(name?: string): string {
    return name === undefined
      ? kubePath('api/v1/namespaces', EVENT_NAMESPACE, 'events')
      : kubePath('api/v1/namespaces', EVENT_NAMESPACE, 'events', name);
  }
}
