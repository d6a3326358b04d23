// The metric names the dashboard and alarms read must be the ones the functions emit: a renamed
// metric would leave a graph empty and an alarm silent, with nothing failing.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/functions.js';
import { METRIC_NAMES, METRIC_NAMESPACE, SERVICE_NAME } from '../../infra/metrics.js';
import { METRICS_NAMESPACE, SERVICE } from '../../lib/lambda/telemetry.js';

/** `addMetric('Name'` in the handlers and lib/lambda (where the functions' metrics are recorded). */
function emittedMetricNames(): Set<string> {
  const files = [
    ...readdirSync(`${PROJECT_ROOT}functions`).map((f) => `${PROJECT_ROOT}functions/${f}`),
    ...readdirSync(`${PROJECT_ROOT}lib/lambda`).map((f) => `${PROJECT_ROOT}lib/lambda/${f}`),
  ].filter((f) => f.endsWith('.ts'));
  const names = new Set<string>();
  for (const file of files) for (const match of readFileSync(file, 'utf8').matchAll(/addMetric\(\s*'(\w+)'/g)) names.add(match[1] ?? '');
  return names;
}

describe('metrics', () => {
  it('should use the namespace and service dimension the functions use', () => {
    expect(METRIC_NAMESPACE).toBe(METRICS_NAMESPACE);
    expect(SERVICE_NAME).toBe(SERVICE);
  });

  it('should know every metric the functions emit, and read only metrics they emit', () => {
    const emitted = emittedMetricNames();
    const known = new Set<string>(Object.values(METRIC_NAMES));
    expect([...emitted].filter((name) => !known.has(name))).toEqual([]);
    expect([...known].filter((name) => !emitted.has(name))).toEqual([]);
  });
});
