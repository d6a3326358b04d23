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

/** A rule's target as PutTargets set it. */
export interface RuleTargetRecord {
  readonly id: string;
  readonly arn: string;
  readonly roleArn?: string;
  readonly input?: string;
  readonly deadLetterArn?: string;
  readonly maximumRetryAttempts?: number;
  readonly maximumEventAgeSeconds?: number;
}

/** An EventBridge rule: its pattern (the JSON text, as PutRule took it), state and targets. */
export interface RuleRecord {
  readonly name: string;
  readonly arn: string;
  readonly eventBusName: string;
  readonly eventPattern?: string;
  readonly scheduleExpression?: string;
  state: 'ENABLED' | 'DISABLED';
  readonly description?: string;
  readonly targets: readonly RuleTargetRecord[];
}

/** Event buses, their rules and what was put on them; `default` always exists, others must be created. */
export class EventBusStore {
  private readonly buses = new Set<string>(['default']);
  private readonly ruleMap = new Map<string, RuleRecord>();
  readonly events: RecordedEvent[] = [];

  putRule(rule: RuleRecord): void {
    this.ruleMap.set(`${rule.eventBusName}/${rule.name}`, rule);
  }

  rule(name: string, busName = 'default'): RuleRecord | undefined {
    return this.ruleMap.get(`${busName}/${name}`);
  }

  /** A bus's rules, by name. */
  rules(busName = 'default'): readonly RuleRecord[] {
    return [...this.ruleMap.values()]
      .filter((r) => r.eventBusName === busName)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

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
