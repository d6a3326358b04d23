// Sequential round trips, measured the way a network would make them felt: every answer of both
// emulators is delayed, each request is stamped with the wall clock when it arrived and when it was
// answered, and the longest chain of requests each started after the previous one was answered is
// the number of round trips. Used by test/pipeline/round-trips.test.ts and the event bench.
import type { PipelineWorld } from './pipeline-world.js';

/** Long enough that processing between two requests never looks like a round trip of its own. */
export const LATENCY_MS = 60;

export interface Span {
  readonly what: string;
  readonly start: number;
  readonly end: number;
}

/** Records every answered request of both emulators as a span of wall time. */
export function recordSpans(world: PipelineWorld): Span[] {
  const spans: Span[] = [];
  const kubeAdd = world.kube.requestLog.add.bind(world.kube.requestLog);
  world.kube.requestLog.add = (entry) => {
    const end = performance.now();
    spans.push({ what: `kube ${entry.method} ${entry.resource}`, start: end - entry.latencyMs, end });
    kubeAdd(entry);
  };
  const awsAdd = world.aws.requestLog.add.bind(world.aws.requestLog);
  world.aws.requestLog.add = (entry) => {
    const end = performance.now();
    spans.push({ what: `${entry.service} ${entry.operation}`, start: end - entry.durationMs, end });
    return awsAdd(entry);
  };
  world.kube.faults.latencyMs = LATENCY_MS;
  world.aws.faults.latency({ ms: LATENCY_MS });
  return spans;
}

/** The longest chain of sequential requests that ends with the first span matching `last`, and that chain. */
export function roundTripsUntil(spans: readonly Span[], last: string): string[] {
  const target = spans.find((s) => s.what === last);
  if (!target) throw new Error(`no ${last} among ${spans.map((s) => s.what).join(', ')}`);
  const chains = new Map<Span, string[]>();
  const chainTo = (span: Span): string[] => {
    const known = chains.get(span);
    if (known) return known;
    const before = spans.filter((s) => s.end <= span.start).map(chainTo);
    const longest = before.reduce<string[]>((a, b) => (b.length > a.length ? b : a), []);
    const chain = [...longest, span.what];
    chains.set(span, chain);
    return chain;
  };
  return chainTo(target);
}
