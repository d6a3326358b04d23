// One cold "Lambda container" for the benchmarks (see handlers.ts): imports a bundled handler,
// invokes it with each event in turn, and prints its figures as the last line of stdout.
// Plain JavaScript so that no loader hook slows the module init it times.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { peakRssKiB } from './peak-rss-kib.mjs';

const spec = JSON.parse(process.env.HANDLER_PROCESS ?? '{}');

function context(name, region, accountId = '111122223333') {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${accountId}:function:${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: '2026/11/29/[$LATEST]abcdef',
    // A sweep gets the function's whole timeout (5 minutes).
    getRemainingTimeInMillis: () => 300_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** A run report without its per-pair rows (100,000 of them in a large sweep): the figures are what matter here. */
function summary(result) {
  if (result === null || typeof result !== 'object' || !('rows' in result)) return result;
  const { rows, actions, ...rest } = result;
  return {
    ...rest,
    rows: rows.length,
    actions: actions.length,
    actionKinds: actions.map((a) => `${a.kind}:${a.outcome}`).slice(0, 50),
  };
}

const initStart = performance.now();
const module = await import(pathToFileURL(spec.bundle).href);
const initMs = performance.now() - initStart;
const invocations = [];
for (const invocation of spec.invocations) {
  const startedAt = Date.now();
  const started = performance.now();
  const cpu = process.cpuUsage();
  try {
    const result = await module.handler(
      invocation.event,
      context(invocation.name, process.env.AWS_REGION ?? 'us-east-1'),
    );
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    invocations.push({
      startedAt,
      endedAt: Date.now(),
      wallMs,
      cpuMs: (used.user + used.system) / 1000,
      result: summary(result),
    });
  } catch (error) {
    invocations.push({
      startedAt,
      endedAt: Date.now(),
      wallMs: performance.now() - started,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
}
const run = { initMs, invocations, maxRssMiB: Math.round(peakRssKiB() / 1024) };
// Powertools logs to stdout too: the figures go on a line of their own, the last.
process.stdout.write(`\n${JSON.stringify(run)}\n`);
// Keep-alive sockets and Powertools timers must not hold the process.
process.exit(0);
