// `npx cdk synth -c clusterName=demo -c region=eu-west-1` end to end, with the network cut: the CLI, the app, cdk-nag
// as a synth-time check and the real esbuild bundling of the three handlers.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ESM_REQUIRE_BANNER, PROJECT_ROOT } from '../../infra/functions.js';
import { DEFAULT_MAX_MB } from '../../scripts/bundle-size.js';

/** A network namespace with no interface but loopback, when the machine allows one (root, util-linux). */
function offlinePrefix(): string[] | undefined {
  const probe = spawnSync('unshare', ['-n', 'true'], { stdio: 'ignore' });
  return probe.status === 0 ? ['unshare', '-n', '--'] : undefined;
}

const outdir = mkdtempSync(join(tmpdir(), 'cdk-synth-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('cdk synth', () => {
  it('should synthesize the app offline, bundling the handlers with the local esbuild', () => {
    const cdk = join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk');
    const args = [
      'synth',
      '-c',
      'clusterName=demo',
      '-c',
      'region=eu-west-1',
      '-o',
      outdir,
      '--quiet',
      '--no-notices',
      '--no-version-reporting',
    ];
    const prefix = offlinePrefix();
    // Without a network namespace, an unreachable proxy still fails any AWS call fast.
    const env = prefix
      ? process.env
      : { ...process.env, HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '' };
    const started = Date.now();
    const run = prefix
      ? spawnSync(prefix[0] ?? 'unshare', [...prefix.slice(1), cdk, ...args], {
          cwd: PROJECT_ROOT,
          env,
          encoding: 'utf8',
        })
      : spawnSync(cdk, args, { cwd: PROJECT_ROOT, env, encoding: 'utf8' });
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `cdk synth (${prefix ? 'network namespace without network' : 'unreachable proxy'}, bundling 3 functions): ${seconds.toFixed(1)} s`,
    );
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).not.toMatch(/AwsSolutions-\w+.*\n.*ERROR|^ERROR/m);

    const template = JSON.parse(readFileSync(join(outdir, 'ec2-node-reconciler-demo.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
    };
    const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions).toHaveLength(3);

    const assets = readdirSync(outdir).filter(
      (name) => name.startsWith('asset.') && existsSync(join(outdir, name, 'index.mjs')),
    );
    expect(assets).toHaveLength(3);
    for (const asset of assets) {
      const bundle = join(outdir, asset, 'index.mjs');
      const code = readFileSync(bundle, 'utf8');
      // ESM with the createRequire banner first, minified, with an external source map.
      expect(code.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
      // Minified: long lines (line breaks survive only inside template literals).
      expect(code.length / code.split('\n').length).toBeGreaterThan(2000);
      expect(existsSync(`${bundle}.map`)).toBe(true);
      expect(code).toMatch(/export\s*\{[^}]*as handler/);
      const mb = statSync(bundle).size / (1024 * 1024);
      console.log(`${asset}: ${mb.toFixed(2)} MB`);
      if (mb > DEFAULT_MAX_MB)
        console.warn(
          `!!! ${asset}/index.mjs is ${mb.toFixed(2)} MB, over the ${DEFAULT_MAX_MB} MB budget: run npx tsx scripts/bundle-size.ts`,
        );
    }
  }, 120_000);
});
