import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { OUTPUT_EVENT_SOURCE, type OutputDetailType } from '@ec2-node-reconciler/model/contract/output-events.js';
import type { LazyClient } from './clients.js';

/** PutEvents takes at most 10 entries a call. */
const PUT_BATCH = 10;
const MAX_ATTEMPTS = 3;

export interface OutputEvent {
  readonly detailType: OutputDetailType;
  readonly detail: Record<string, unknown>;
  /** ARNs of the instances concerned (EventBridge `resources`). */
  readonly resources?: readonly string[];
}

export interface PublishResult {
  readonly sent: number;
  /** Entries still failing after retries, with EventBridge's error code. */
  readonly failed: { readonly detailType: OutputDetailType; readonly error: string }[];
}

/** Publishes the reconciler's own events; entries that fail are retried, never silently dropped. */
export class OutputEventPublisher {
  constructor(
    private readonly events: LazyClient<EventBridgeClient>,
    private readonly busName: string,
  ) {}

  async publish(outputs: readonly OutputEvent[]): Promise<PublishResult> {
    let sent = 0;
    const failed: PublishResult['failed'] = [];
    if (outputs.length === 0) return { sent, failed };
    const [events, { PutEventsCommand }] = await Promise.all([this.events(), import('@aws-sdk/client-eventbridge')]);
    for (let i = 0; i < outputs.length; i += PUT_BATCH) {
      let pending = outputs.slice(i, i + PUT_BATCH);
      for (let attempt = 1; pending.length > 0; attempt++) {
        const entries: PutEventsRequestEntry[] = pending.map((o) => ({
          EventBusName: this.busName,
          Source: OUTPUT_EVENT_SOURCE,
          DetailType: o.detailType,
          Detail: JSON.stringify(o.detail),
          ...(o.resources ? { Resources: [...o.resources] } : {}),
        }));
        const response = await events.send(new PutEventsCommand({ Entries: entries }));
        const results = response.Entries ?? [];
        const retry: OutputEvent[] = [];
        pending.forEach((output, index) => {
          const result = results[index];
          if (result?.EventId) sent++;
          else if (attempt < MAX_ATTEMPTS) retry.push(output);
          else failed.push({ detailType: output.detailType, error: result?.ErrorCode ?? 'no result entry' });
        });
        pending = retry;
      }
    }
    return { sent, failed };
  }
}
