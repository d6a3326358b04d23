// CloudFormation stacks as DescribeStacks describes them: what was deployed, and its outputs.

export interface StackOutputRecord {
  readonly key: string;
  readonly value: string;
  readonly description?: string;
}

export interface StackRecord {
  readonly name: string;
  /** `arn:aws:cloudformation:<region>:<account>:stack/<name>/<uuid>`. */
  readonly id: string;
  readonly status: string;
  readonly description?: string;
  readonly createdAt: number;
  readonly outputs: readonly StackOutputRecord[];
}

export class StackStore {
  private readonly byName = new Map<string, StackRecord>();

  put(stack: StackRecord): void {
    this.byName.set(stack.name, stack);
  }

  /** By name or stack id, as DescribeStacks takes either. */
  get(nameOrId: string): StackRecord | undefined {
    return this.byName.get(nameOrId) ?? [...this.byName.values()].find((s) => s.id === nameOrId);
  }

  all(): readonly StackRecord[] {
    return [...this.byName.values()];
  }
}
