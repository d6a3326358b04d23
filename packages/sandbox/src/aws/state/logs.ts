// CloudWatch Logs: log groups, their streams and events, as the functions of the deployed world
// write them (src/deployed/lambda-service.ts appends each invocation's lines).

export interface LogEventRecord {
  readonly timestamp: number;
  readonly ingestionTime: number;
  readonly message: string;
  /** Unique in the group, in order of ingestion. */
  readonly eventId: string;
}

export interface LogStreamRecord {
  readonly name: string;
  readonly createdAt: number;
  readonly events: LogEventRecord[];
}

export interface LogGroupRecord {
  readonly name: string;
  readonly createdAt: number;
  readonly streams: Map<string, LogStreamRecord>;
}

export class LogStore {
  private readonly groups = new Map<string, LogGroupRecord>();
  private sequence = 0;

  createGroup(name: string, at: number): LogGroupRecord {
    let group = this.groups.get(name);
    if (!group) this.groups.set(name, (group = { name, createdAt: at, streams: new Map() }));
    return group;
  }

  group(name: string): LogGroupRecord | undefined {
    return this.groups.get(name);
  }

  /** Appends lines to a stream (created on first use, with its group), each one event at `at`. */
  append(groupName: string, streamName: string, lines: readonly string[], at: number): void {
    const group = this.createGroup(groupName, at);
    let stream = group.streams.get(streamName);
    if (!stream) group.streams.set(streamName, (stream = { name: streamName, createdAt: at, events: [] }));
    for (const message of lines) {
      this.sequence += 1;
      stream.events.push({
        timestamp: at,
        ingestionTime: at,
        message,
        eventId: String(this.sequence).padStart(56, '0'),
      });
    }
  }
}
