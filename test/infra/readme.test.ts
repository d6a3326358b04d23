// The README and docs/ tables are documentation of code: they must list what the code has, with its defaults.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAppOptions } from '../../infra/app-context.js';
import { PROJECT_ROOT } from '../../infra/functions.js';
import { METRIC_NAMES } from '@ec2-node-reconciler/model/contract/metrics.js';
import { CONDITIONS } from '@ec2-node-reconciler/model/condition.js';
import { formatDuration } from '@ec2-node-reconciler/model/duration.js';
import {
  CLUSTER_RULES,
  LEASE_NAMESPACE,
  LEASE_RULES,
  type PolicyRule,
} from '@ec2-node-reconciler/model/contract/rbac.js';
import { DEFAULT_SETTINGS, SettingsSchema } from '@ec2-node-reconciler/model/contract/settings.js';

const read = (path: string): string => readFileSync(`${PROJECT_ROOT}${path}`, 'utf8');
const README = read('README.md');
/** Every Markdown file a reader is sent to: the README, CONTRIBUTING.md and docs/. */
const DOCUMENTS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(`${PROJECT_ROOT}docs`)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Rows of the first table after `heading` in `text`: first cell → second cell, backticks removed. */
function table(text: string, heading: string): Map<string, string> {
  expect(text, `no ${heading}`).toContain(heading);
  const section = text.slice(text.indexOf(heading));
  const rows = new Map<string, string>();
  for (const line of section.split('\n').slice(1)) {
    if (line.startsWith('#') || (rows.size > 0 && !line.startsWith('|'))) break;
    const cells = line.split('|').map((c) => c.trim().replace(/`/g, ''));
    if (
      cells.length < 4 ||
      cells[1] === '' ||
      /^-+$/.test(cells[1] ?? '') ||
      ['setting', 'prop', 'metric', 'key'].includes(cells[1] ?? '')
    )
      continue;
    rows.set(cells[1] ?? '', cells[2] ?? '');
  }
  return rows;
}

/** Every leaf setting by its dotted name (`repair.after.Ready`), nested objects walked into. */
function leaves(value: unknown, prefix = ''): [string, unknown][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [[prefix, value]];
  return Object.entries(value).flatMap(([key, child]) => leaves(child, prefix === '' ? key : `${prefix}.${key}`));
}

/** The input that sets the dotted setting `key` to `value` (`repair.after.Ready` → `{ repair: { after: { Ready } } }`). */
const at = (key: string, value: unknown): unknown =>
  key.split('.').reduceRight<unknown>((inner, part) => ({ [part]: inner }), value);

// A duration setting takes a duration (some only from an hour on: repair.failureWindow).
const isDuration = (key: string) => ['10m', '2h'].some((d) => SettingsSchema.safeParse(at(key, d)).success);

/** GitHub's anchor of each heading of `text` (without its own duplicates' suffixes). */
const anchorsOf = (text: string): Set<string> =>
  new Set(
    [...text.matchAll(/^#+ (.+)$/gm)].map((m) =>
      (m[1] ?? '')
        .toLowerCase()
        .replace(/[^a-z0-9 _-]/g, '')
        .replace(/ /g, '-'),
    ),
  );

describe('README.md', () => {
  it('should start with what it does, then exactly the two set-up commands', () => {
    const firstBlock = /```sh\n([^`]*)```/.exec(README)?.[1] ?? '';
    const commands = firstBlock
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter((line) => line !== '');

    expect(README.indexOf('Keeps every EC2 machine')).toBeLessThan(README.indexOf('## Quick start'));
    expect(commands).toEqual(['npm ci && npm start', 'npm test']);
  });

  it('should show exactly the RBAC the manifest grants, rule by rule', () => {
    const rowOf = (rule: PolicyRule, scope: string): string =>
      `| ${rule.apiGroups.map((g) => (g === '' ? 'core' : g)).join(', ')} | ${rule.resources.map((r) => `\`${r}\``).join(', ')} | ${rule.verbs.join(', ')} | ${scope} |`;
    const expected = [
      ...CLUSTER_RULES.map((rule) => rowOf(rule, 'ClusterRole')),
      ...LEASE_RULES.map((rule) => rowOf(rule, `Role in \`${LEASE_NAMESPACE}\``)),
    ];

    const lines = README.slice(README.indexOf('| API group |')).split('\n').slice(2);
    const shown = lines.slice(
      0,
      lines.findIndex((line) => !line.startsWith('|')),
    );

    expect(shown).toEqual(expected);
  });
});

describe('docs/design.md', () => {
  it('should have every condition in its table, the same table as the README’s', () => {
    const design = read('docs/design.md');
    const tableIn = (text: string): string => {
      const start = text.indexOf('| condition | machine | Node object | remedy |');
      const end = text.indexOf('\n\n', start);
      return text.slice(start, end);
    };

    expect([...table(design, '| condition |').keys()].sort()).toEqual([...CONDITIONS].sort());
    expect(tableIn(design).replace('(docs/repair.md)', '(repair.md)')).toBe(
      tableIn(README).replace('(docs/repair.md)', '(repair.md)'),
    );
  });

  it('should have every section the code cites (§1–§8, §1a–§1c)', () => {
    const headings = [...read('docs/design.md').matchAll(/^#{2,3} (\d[a-z]?)\. /gm)].map((m) => m[1]);

    expect(headings).toEqual(['1', '1a', '1b', '1c', '2', '3', '4', '5', '6', '7', '8']);
  });

  it('should have every section the code cites as docs/design.md §N', () => {
    const sections = new Set([...read('docs/design.md').matchAll(/^#{2,3} (\d[a-z]?)\. /gm)].map((m) => m[1] ?? ''));
    const sources = ['lib', 'cli', 'infra', 'functions', 'packages', 'test', 'scripts'].flatMap((dir) =>
      readdirSync(`${PROJECT_ROOT}${dir}`, { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ts|mts|js|mjs)$/.test(f) && !f.includes('node_modules'))
        .map((f) => `${dir}/${f}`),
    );

    const cited = sources.flatMap((file) =>
      [...read(file).matchAll(/docs\/design\.md §(\d[a-z]?)/g)].map((m) => ({ file, section: m[1] ?? '' })),
    );

    expect(cited.filter((c) => !sections.has(c.section))).toEqual([]);
  });
});

describe('docs/settings.md', () => {
  it('should list every setting with its default', () => {
    const rows = table(read('docs/settings.md'), '| setting |');
    const settings = leaves(DEFAULT_SETTINGS);
    expect([...rows.keys()].sort()).toEqual(settings.map(([key]) => key).sort());
    for (const [key, value] of settings) {
      const expected = isDuration(key) && typeof value === 'number' ? formatDuration(value) : String(value);
      expect(rows.get(key), key).toBe(expected);
    }
  });
});

describe('docs/deploy.md', () => {
  it('should list every NodeReconciler prop', () => {
    const source = readFileSync(`${PROJECT_ROOT}infra/node-reconciler.ts`, 'utf8');
    const body = source.slice(
      source.indexOf('export interface NodeReconcilerProps'),
      source.indexOf('\n}\n', source.indexOf('export interface NodeReconcilerProps')),
    );
    const props = [...body.matchAll(/readonly (\w+)\?:/g)].map((m) => m[1] ?? '');
    expect([...table(read('docs/deploy.md'), '| prop |').keys()].sort()).toEqual(props.sort());
  });

  it('should list every context key the app reads, and no other, with the defaults of its flags', () => {
    // Prepare: the app reads every key whatever the context holds; record which
    const keysRead: string[] = [];
    // Act
    const defaults = readAppOptions(
      (key) => {
        keysRead.push(key);
        return key === 'clusterName' ? 'demo' : undefined;
      },
      { AWS_REGION: 'eu-west-1' },
    );
    // Assess
    const rows = table(read('docs/deploy.md'), '| key |');
    expect([...rows.keys()].sort()).toEqual([...new Set(keysRead)].sort());
    expect(rows.get('createAccessEntries')).toBe(String(defaults.createAccessEntries));
    expect(rows.get('nag')).toBe(String(defaults.nag));
    expect(rows.get('dryRun')).toBe(String(DEFAULT_SETTINGS.dryRun));
  });
});

describe.each(DOCUMENTS)('%s', (document) => {
  it('should link only files inside the repository that exist, and headings they have', () => {
    const text = read(document);
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
    for (const link of links.filter((l) => !/^[a-z]+:/.test(l))) {
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? resolve(PROJECT_ROOT, document) : resolve(PROJECT_ROOT, dirname(document), path);
      expect(relative(PROJECT_ROOT, target).startsWith('..'), `${link}: outside the repository`).toBe(false);
      expect(existsSync(target), `${link}: no such file`).toBe(true);
      if (anchor !== undefined && target.endsWith('.md'))
        expect(anchorsOf(readFileSync(target, 'utf8')).has(anchor), `${link}: no such heading`).toBe(true);
    }
  });
});

describe('docs/observability.md', () => {
  it('should list every metric', () => {
    const section = table(read('docs/observability.md'), '| metric |');
    const text = read('docs/observability.md');
    expect([...section.keys()].sort()).toEqual(Object.values(METRIC_NAMES).sort());
    expect(text).toContain('## Metrics and alarms');
  });
});
