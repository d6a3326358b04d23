// The README tables are documentation of code: they must list what the code has, with its defaults.
import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAppOptions } from '../../infra/app-context.js';
import { PROJECT_ROOT } from '../../infra/functions.js';
import { METRIC_NAMES } from '../../lib/contract/metrics.js';
import { formatDuration } from '../../lib/model/duration.js';
import { DEFAULT_SETTINGS, SettingsSchema } from '../../lib/contract/settings.js';

const README = readFileSync(`${PROJECT_ROOT}README.md`, 'utf8');

/** Rows of the first table after `heading`: first cell → second cell, backticks removed. */
function table(heading: string): Map<string, string> {
  const section = README.slice(README.indexOf(heading));
  const rows = new Map<string, string>();
  for (const line of section.split('\n').slice(1)) {
    if (line.startsWith('#')) break;
    const cells = line.split('|').map((c) => c.trim().replace(/`/g, ''));
    if (
      cells.length < 4 ||
      cells[1] === '' ||
      /^-+$/.test(cells[1] ?? '') ||
      ['setting', 'prop', 'metric', 'key'].includes(cells[1] ?? '')
    )
      continue;
    if (rows.size > 0 && !line.startsWith('|')) break;
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

const isDuration = (key: string) => SettingsSchema.safeParse(at(key, '10m')).success;

describe('README.md', () => {
  it('should list every setting with its default', () => {
    const rows = table('## Settings');
    const settings = leaves(DEFAULT_SETTINGS);
    expect([...rows.keys()].sort()).toEqual(settings.map(([key]) => key).sort());
    for (const [key, value] of settings) {
      const expected = isDuration(key) && typeof value === 'number' ? formatDuration(value) : String(value);
      expect(rows.get(key), key).toBe(expected);
    }
  });

  it('should list every NodeReconciler prop', () => {
    const source = readFileSync(`${PROJECT_ROOT}infra/node-reconciler.ts`, 'utf8');
    const body = source.slice(
      source.indexOf('export interface NodeReconcilerProps'),
      source.indexOf('\n}\n', source.indexOf('export interface NodeReconcilerProps')),
    );
    const props = [...body.matchAll(/readonly (\w+)\?:/g)].map((m) => m[1] ?? '');
    expect([...table('| prop |').keys()].sort()).toEqual(props.sort());
  });

  it('should list every context key the app reads, and no other, with the defaults of its flags', () => {
    // Prepare: the app reads every key whatever the context holds; record which
    const read: string[] = [];
    // Act
    const defaults = readAppOptions(
      (key) => {
        read.push(key);
        return key === 'clusterName' ? 'demo' : undefined;
      },
      { AWS_REGION: 'eu-west-1' },
    );
    // Assess
    const rows = table('| key |');
    expect([...rows.keys()].sort()).toEqual([...new Set(read)].sort());
    expect(rows.get('createAccessEntries')).toBe(String(defaults.createAccessEntries));
    expect(rows.get('nag')).toBe(String(defaults.nag));
    expect(rows.get('dryRun')).toBe(String(DEFAULT_SETTINGS.dryRun));
  });

  it('should link only files inside the repository that exist, and headings it has', () => {
    const links = [...README.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
    const anchors = new Set(
      [...README.matchAll(/^#+ (.+)$/gm)].map((m) =>
        (m[1] ?? '')
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    for (const link of links.filter((l) => !/^[a-z]+:/.test(l))) {
      const [path = '', anchor] = link.split('#');
      if (path === '') {
        expect(anchors.has(anchor ?? ''), `${link}: no such heading`).toBe(true);
        continue;
      }
      const target = resolve(PROJECT_ROOT, path);
      expect(relative(PROJECT_ROOT, target).startsWith('..'), `${link}: outside the repository`).toBe(false);
      expect(existsSync(target), `${link}: no such file`).toBe(true);
    }
  });

  it('should list every metric', () => {
    const section = README.slice(README.indexOf('## Metrics and alarms'));
    for (const name of Object.values(METRIC_NAMES)) expect(section).toContain(`\`${name}\``);
  });
});
