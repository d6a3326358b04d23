// SQS queues as the APIs describe them. The messages live with whoever moves them (the deployed
// world's signal queue, src/deployed/queue.ts): a queue here answers with their counts as they are now.

/** ApproximateNumberOfMessages, …NotVisible and …Delayed, read when asked. */
export interface QueueCounts {
  readonly visible: number;
  readonly notVisible: number;
  readonly delayed: number;
}

export interface QueueRecord {
  readonly name: string;
  /** `https://sqs.<region>.amazonaws.com/<account>/<name>`, as CloudFormation hands it out. */
  readonly url: string;
  readonly arn: string;
  readonly createdAt: number;
  /** The queue's own attributes as SQS names them (VisibilityTimeout, MessageRetentionPeriod, RedrivePolicy, …). */
  readonly attributes: Readonly<Record<string, string>>;
  readonly counts: () => QueueCounts;
}

const EMPTY: QueueCounts = { visible: 0, notVisible: 0, delayed: 0 };

/** `/<account>/<name>` of a queue URL, whatever its host (AWS's, or the emulator's own). */
const queuePath = (url: string): string | undefined => {
  try {
    return /^\/\d{12}\/[\w-]{1,80}(?:\.fifo)?$/.exec(new URL(url).pathname)?.[0];
  } catch {
    return undefined;
  }
};

export class QueueStore {
  private readonly byPath = new Map<string, QueueRecord>();

  /** Adds a queue; `counts` defaults to an empty queue. */
  put(queue: Omit<QueueRecord, 'counts'> & { readonly counts?: () => QueueCounts }): QueueRecord {
    const path = queuePath(queue.url);
    if (path === undefined) throw new Error(`adding queue ${queue.name}: ${queue.url} is not a queue URL`);
    const record: QueueRecord = { ...queue, counts: queue.counts ?? (() => EMPTY) };
    this.byPath.set(path, record);
    return record;
  }

  /** By URL (any host: a client may have rewritten it to its endpoint). */
  byUrl(url: string): QueueRecord | undefined {
    const path = queuePath(url);
    return path === undefined ? undefined : this.byPath.get(path);
  }

  byName(name: string): QueueRecord | undefined {
    return [...this.byPath.values()].find((q) => q.name === name);
  }

  all(): readonly QueueRecord[] {
    return [...this.byPath.values()];
  }
}
