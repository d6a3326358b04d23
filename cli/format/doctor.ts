// doctor's report: a line per check — ✓ passed, ✗ failed, ? not checked — and under each that did
// not pass the fix to run; then a count. `-o json` gives the same as one object.
import { summarize, type Check, type CheckSummary } from '../doctor/check.js';

export interface DoctorRun {
  readonly cluster: string;
  readonly region: string;
  readonly stack: string;
  /** Who ran it (sts:GetCallerIdentity). */
  readonly caller: string;
  readonly checks: Check[];
}

const MARK: Readonly<Record<Check['status'], string>> = { pass: '✓', fail: '✗', unknown: '?' };

const width = (values: readonly string[]): number => Math.max(0, ...values.map((v) => v.length));

export function formatDoctor(run: DoctorRun): string {
  const checkWidth = width(run.checks.map((c) => c.check));
  const subjectWidth = width(run.checks.map((c) => c.subject));
  const lines = [`cluster ${run.cluster} (${run.region}), stack ${run.stack}, as ${run.caller}`, ''];
  for (const c of run.checks) {
    lines.push(`${MARK[c.status]} ${c.check.padEnd(checkWidth)}  ${c.subject.padEnd(subjectWidth)}  ${c.detail}`);
    if (c.fix !== undefined && c.status !== 'pass') lines.push(`  fix: ${c.fix}`);
  }
  const { passed, failed, unknown } = summarize(run.checks);
  lines.push(
    '',
    [
      failed > 0 ? `${failed} failed` : undefined,
      unknown > 0 ? `${unknown} not checked` : undefined,
      `${passed} passed`,
    ]
      .filter((part) => part !== undefined)
      .join(', '),
  );
  return lines.join('\n');
}

export interface DoctorJson extends Omit<DoctorRun, 'checks'> {
  readonly checks: readonly Check[];
  readonly summary: CheckSummary;
}

export const doctorJson = (run: DoctorRun): DoctorJson => ({ ...run, summary: summarize(run.checks) });
