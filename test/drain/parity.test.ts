import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N1, N2 } from './support/emulated.js';
import { runParity } from './support/parity.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'drain-parity-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const untouchedElsewhere = [`default/web-6d4f-bbbbb@${N2}`, `default/web-6d4f-ccccc@${N2}`];

describe('parity with kubectl drain --ignore-daemonsets --delete-emptydir-data --force', () => {
  it('should end pod for pod where kubectl ends when every PDB allows the drain', async () => {
    const { kubectl, ours } = await runParity({ blockingPdb: false, timeoutSeconds: 30, graceSeconds: 1 }, dir, {
      concurrently: true,
    });

    expect(kubectl.exitCode).toBe(0);
    expect(kubectl.stdout).toContain(`node/${N1} drained`);
    expect(ours.result.status).toBe('drained');
    expect(ours.endState).toEqual(kubectl.endState);
    expect(kubectl.endState).toEqual(
      [...untouchedElsewhere, `kube-system/fluent-bit-x1@${N1}`, `kube-system/kube-proxy-${N1}@${N1}`].sort(),
    );
    expect([ours.unschedulable, kubectl.unschedulable]).toEqual([true, true]);
  });

  it('should leave the PDB-blocked pod, as kubectl does, and stop at the timeout', async () => {
    const { kubectl, ours } = await runParity({ blockingPdb: true, timeoutSeconds: 6, graceSeconds: 1 }, dir, {
      concurrently: true,
    });

    expect(kubectl.exitCode).not.toBe(0);
    expect(kubectl.stderr).toContain('db-0');
    // kubectl exits 1; we end incomplete (Drain Failed, CLI exit 1).
    expect(ours.result.status).toBe('incomplete');
    expect(ours.result.blocked.map((b) => [b.pod.name, b.pdb])).toEqual([['db-0', 'default/db']]);
    expect(ours.endState).toEqual(kubectl.endState);
    expect(kubectl.endState).toEqual(
      [
        `default/db-0@${N1}`,
        ...untouchedElsewhere,
        `kube-system/fluent-bit-x1@${N1}`,
        `kube-system/kube-proxy-${N1}@${N1}`,
      ].sort(),
    );
    // Both retried the eviction on kubectl's 5 s back-off rather than in a tight loop.
    for (const side of [kubectl, ours]) expect(side.byKind['create pods/eviction']).toBeLessThanOrEqual(12);
  });
});
