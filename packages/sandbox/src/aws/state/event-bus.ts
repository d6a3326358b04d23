/** An event PutEvents accepted, as a test or the sandbox reads it back. */
export interface RecordedEvent {
  readonly eventId: string;
  /** When it was accepted (clock time). */
  readonly receivedAt: number;
  /** The entry's `Time`, or receivedAt when it had none. */
  readonly time: number;
  readonly eventBusName: string;
  readonly source: string;
  readonly detailType: string;
  /** The parsed `Detail` JSON object. */
  readonly detail: Readonly<Record<string, unknown>>;
  readonly resources: readonly string[];
  readonly traceHeader?: string;
}

/** Event buses and what was put on them; `default` always exists, others must be created. */
export class EventBusStore {
  private readonly buses = new Set<string>(['default']);
  readonly events: RecordedEvent[] = [];

  createBus(name: string): void {
    this.buses.add(name);
  }

  hasBus(name: string): boolean {
    return this.buses.has(name);
  }

  record(event: RecordedEvent): void {
    this.events.push(event);
  }

  on(busName: string): readonly RecordedEvent[] {
    return this.events.filter((e) => e.eventBusName === busName);
  }
}
