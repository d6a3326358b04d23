// JSONata for moto's Step Functions interpreter (its own evaluator needs a JVM): one JSON request
// per line on stdin, {"expression", "now"}, one JSON answer per line on stdout, {"ok", "value"} or
// {"ok": false, "error"}. `now` (epoch ms) is the oracle's virtual time, for $millis() and $now().
import { createInterface } from 'node:readline';
import jsonata from 'jsonata';

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === '') continue;
  const { expression, now } = JSON.parse(line);
  let answer;
  try {
    const value = await jsonata(expression).evaluate(undefined, {
      millis: () => now,
      now: () => new Date(now).toISOString(),
    });
    answer = {
      ok: true,
      value: value === undefined ? null : JSON.parse(JSON.stringify(value)),
      undefined: value === undefined,
    };
  } catch (error) {
    answer = { ok: false, error: `${error.code ?? ''} ${error.message ?? String(error)}`.trim() };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
