/** API requests by kind ("kube GET nodes", "ec2 DescribeInstances"), for reports and benchmarks. */
export class ApiCallCounter {
  private readonly counts = new Map<string, number>();

  add(kind: string, n = 1): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + n);
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  total(): number {
    let sum = 0;
    for (const n of this.counts.values()) sum += n;
    return sum;
  }
}
