// Legacy (unaggregated) discovery documents. kubectl asks for aggregated discovery first and
// falls back to these when the answer is a plain APIVersions / APIGroupList.
import { RESOURCES, type ResourceDef } from './resources.js';

export type ServerVersion = { major: string; minor: string; gitVersion: string };

export function versionInfo(version: ServerVersion): Record<string, string> {
  return {
    major: version.major,
    minor: version.minor,
    gitVersion: version.gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.23.4',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

/** `1.31` → the version document an EKS 1.31 control plane would send. */
export function serverVersion(minorVersion: string): ServerVersion {
  const [major = '1', minor = '31'] = minorVersion.split('.');
  return { major, minor, gitVersion: `v${major}.${minor}.4-eks-emulator` };
}

const served = RESOURCES.filter((r) => r.group !== '' || r.version === 'v1');

/** Groups in the order a real server lists them (core first, then by priority). */
export function groups(): string[] {
  const names: string[] = [];
  for (const r of served) if (r.group !== '' && !names.includes(r.group)) names.push(r.group);
  return names;
}

function versionsOf(group: string): string[] {
  return [...new Set(served.filter((r) => r.group === group).map((r) => r.version))];
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDocument(group: string): Record<string, unknown> {
  const versions = versionsOf(group).map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions, preferredVersion: versions[0] };
}

export function apiGroupList(): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups().map(groupDocument) };
}

export function apiGroup(group: string): Record<string, unknown> | undefined {
  if (!groups().includes(group)) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(group) };
}

function resourceEntries(def: ResourceDef): Record<string, unknown>[] {
  const main = {
    name: def.plural,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: def.verbs,
    ...(def.shortNames === undefined ? {} : { shortNames: def.shortNames }),
    ...(def.categories === undefined ? {} : { categories: def.categories }),
  };
  const subs = Object.entries(def.subresources).map(([sub, s]) => ({
    name: `${def.plural}/${sub}`,
    singularName: '',
    namespaced: def.namespaced,
    ...(s.group === undefined ? {} : { group: s.group }),
    ...(s.version === undefined ? {} : { version: s.version }),
    kind: s.kind,
    verbs: s.verbs,
  }));
  return [main, ...subs];
}

export function apiResourceList(group: string, version: string): Record<string, unknown> | undefined {
  const defs = served.filter((r) => r.group === group && r.version === version);
  if (defs.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources: defs.flatMap(resourceEntries),
  };
}
