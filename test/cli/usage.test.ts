// The binary as someone who mistypes it meets it: a version, help per command, and "did you mean"
// for a mistyped command or flag, each with the README's exit codes (0 done, 2 bad input).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { closest } from '../../lib/cli/suggest.js';

const BIN = new URL('../../bin/ec2-node-reconciler.mjs', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Runs the binary (the node that runs the tests: Node 24), whatever it exits with. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe.concurrent('the command line, mistyped', () => {
  it('should print its version with --version, -v and version', async () => {
    for (const flag of ['--version', '-v', 'version']) {
      const result = await cli(flag);
      expect(result).toEqual({ code: 0, stdout: `ec2-node-reconciler ${VERSION} (node ${process.version})\n`, stderr: '' });
    }
  });

  it('should print a command’s own help with `help COMMAND`, as `COMMAND --help` does', async () => {
    const [viaHelp, viaFlag] = await Promise.all([cli('help', 'drain'), cli('drain', '--help')]);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toMatch(/^Usage: ec2-node-reconciler drain /);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(await cli('help', 'nope')).toEqual(expect.objectContaining({ code: 2, stderr: expect.stringMatching(/^error: unknown command "nope"\n/) as unknown }));
  });

  it('should suggest the command meant, and exit 2', async () => {
    const result = await cli('swep');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: unknown command "swep" \(did you mean sweep\?\)\n/);
  });

  it('should suggest the flag meant, and say how to pass a value that starts with a dash, and exit 2', async () => {
    const [typo, dash] = await Promise.all([cli('sweep', '--dry-runn'), cli('sweep', '--max-deletions', '-1')]);
    expect(typo).toEqual(expect.objectContaining({ code: 2, stderr: 'error: unknown flag --dry-runn (did you mean --dry-run?) (see: ec2-node-reconciler sweep --help)\n' }));
    expect(dash).toEqual(
      expect.objectContaining({ code: 2, stderr: 'error: --max-deletions needs a value, and the next argument looks like a flag: write --max-deletions=VALUE (see: ec2-node-reconciler sweep --help)\n' }),
    );
  });
});

describe('closest', () => {
  it('should find words within two edits, or those the typed word begins, nearest first, and nothing far away', () => {
    expect(closest('swep', ['sweep', 'simulate', 'event'])).toEqual(['sweep']);
    expect(closest('decom', ['decommission', 'drain'])).toEqual(['decommission']);
    expect(closest('heartbeat-grce', ['heartbeat-grace', 'not-found-grace', 'registration-grace'])).toEqual(['heartbeat-grace']);
    expect(closest('xyz', ['sweep', 'drain'])).toEqual([]);
    expect(closest('ab', ['cd'])).toEqual([]);
  });
});
