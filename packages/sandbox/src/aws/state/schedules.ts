// EventBridge Scheduler schedules as GetSchedule describes them (the deployed world fires the
// sweep's itself, src/simulate/sandbox.ts scheduledSweep).

export interface ScheduleRecord {
  readonly name: string;
  readonly groupName: string;
  readonly arn: string;
  readonly expression: string;
  readonly timezone?: string;
  readonly state: 'ENABLED' | 'DISABLED';
  readonly description?: string;
  readonly target: {
    readonly arn: string;
    readonly roleArn: string;
    readonly input?: string;
    readonly maximumRetryAttempts: number;
    readonly maximumEventAgeSeconds: number;
  };
  readonly flexibleTimeWindow: { readonly mode: string; readonly maximumWindowInMinutes?: number };
  readonly createdAt: number;
  readonly modifiedAt: number;
}

export class ScheduleStore {
  private readonly byKey = new Map<string, ScheduleRecord>();

  put(schedule: ScheduleRecord): void {
    this.byKey.set(`${schedule.groupName}/${schedule.name}`, schedule);
  }

  get(name: string, groupName = 'default'): ScheduleRecord | undefined {
    return this.byKey.get(`${groupName}/${name}`);
  }
}
