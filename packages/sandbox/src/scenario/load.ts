import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type * as z from 'zod';
import { regionOfZone } from '@ec2-node-reconciler/model/provider-id.js';
import { isServiceName, SERVICE_NAMES } from '../aws/services/names.js';
import { hookDefinitions } from './hooks.js';
import { ScenarioSchema, type Scenario } from './schema.js';

/** A scenario that cannot be run: exit 2, naming the path of the offending key. */
export class ScenarioError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file}: invalid scenario:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ScenarioError';
  }
}

export interface LoadedScenario {
  readonly scenario: Scenario;
  /** Folder the scenario came from: `event.file` paths are relative to it. */
  readonly baseDir: string;
  readonly file: string;
}

function pathText(path: readonly PropertyKey[]): string {
  return (
    path.reduce<string>(
      (text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)),
      '',
    ) || '(root)'
  );
}

type Issue = z.core.$ZodIssue;

const atRoot = (branch: readonly Issue[], codes: readonly Issue['code'][]): boolean =>
  branch.some((i) => i.path.length === 0 && codes.includes(i.code));

/**
 * The one shape of a union the value was meant as, when only one fits: the branch whose type it has
 * (not refused as a whole for its type or value) and whose keys it uses (no key of the value unknown
 * to it), else the only branch of its type; for a value of no branch's type, the only enum it missed.
 * A step `{ drain: { node: n, reasn: x } }` is the drain step, so its bad key is named inside it.
 */
function meantBranch(errors: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  const only = (branches: readonly (readonly Issue[])[]) => (branches.length === 1 ? branches[0] : undefined);
  const ofItsType = errors.filter((branch) => !atRoot(branch, ['invalid_type', 'invalid_value']));
  return (
    only(ofItsType.filter((branch) => !atRoot(branch, ['unrecognized_keys']))) ??
    only(ofItsType) ??
    (ofItsType.length === 0 ? only(errors.filter((branch) => atRoot(branch, ['invalid_value']))) : undefined)
  );
}

function issueText(issue: Issue): string {
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((k) => `${pathText([...issue.path, k])}: unknown key`).join('; ');
  if (issue.code === 'invalid_union') {
    // A step is one of several strict objects: a key none of them knows is the typo to name,
    // rather than zod's bare "Invalid input".
    const unknownIn = issue.errors.map(
      (branch) => new Set(branch.flatMap((i) => (i.code === 'unrecognized_keys' && i.path.length === 0 ? i.keys : []))),
    );
    const everywhere = [...(unknownIn[0] ?? [])].filter((key) => unknownIn.every((keys) => keys.has(key)));
    if (everywhere.length > 0) return everywhere.map((k) => `${pathText([...issue.path, k])}: unknown key`).join('; ');
    // Else what is wrong inside the shape it was meant as (its issues' paths are the union's own).
    const meant = meantBranch(issue.errors);
    if (meant !== undefined && meant.length > 0)
      return meant.map((i) => issueText({ ...i, path: [...issue.path, ...i.path] })).join('; ');
  }
  return `${pathText(issue.path)}: ${issue.message}`;
}

/** Cross-references the schema cannot see: every pod names a node of the scenario, and so on. */
function danglingReferences(scenario: Scenario): string[] {
  const problems: string[] = [];
  const nodes = new Set(scenario.nodes.map((n) => n.name));
  const ids = new Set(scenario.instances.map((i) => i.id));
  const duplicates = (names: string[], what: string) => {
    const seen = new Set<string>();
    names.forEach((name, i) => {
      if (seen.has(name)) problems.push(`${what}[${i}]: duplicate ${name}`);
      seen.add(name);
    });
  };
  duplicates(
    scenario.nodes.map((n) => n.name),
    'nodes',
  );
  duplicates(
    scenario.instances.map((i) => i.id),
    'instances',
  );
  duplicates(
    scenario.pods.map((p) => `${p.namespace}/${p.name}`),
    'pods',
  );
  scenario.pods.forEach((pod, i) => {
    if (!nodes.has(pod.node)) problems.push(`pods[${i}].node: no node named ${pod.node}`);
  });
  scenario.instances.forEach((instance, i) => {
    // The emulator is the cluster's region (an absent instance is nowhere).
    if (instance.state !== 'absent' && regionOfZone(instance.zone) !== scenario.cluster.region)
      problems.push(`instances[${i}].zone: ${instance.zone} is not in the cluster's region ${scenario.cluster.region}`);
  });
  problems.push(...hookDefinitions(scenario.instances).problems);
  scenario.faults.forEach((fault, i) => {
    const service = fault.api.split(':')[0] ?? '';
    if (service !== 'kube' && !isServiceName(service))
      problems.push(`faults[${i}].api: the sandbox emulates no ${service} (it has kube, ${SERVICE_NAMES.join(', ')})`);
  });
  scenario.steps.forEach((step, i) => {
    const named =
      'drain' in step
        ? step.drain.node
        : 'cordon' in step
          ? step.cordon
          : 'uncordon' in step
            ? step.uncordon
            : 'condition' in step
              ? step.condition.node
              : undefined;
    const key =
      'drain' in step ? 'drain.node' : 'cordon' in step ? 'cordon' : 'uncordon' in step ? 'uncordon' : 'condition.node';
    if (named !== undefined && !nodes.has(named)) problems.push(`steps[${i}].${key}: no node named ${named}`);
  });
  for (const name of Object.keys(scenario.expect?.nodes ?? {})) {
    if (!nodes.has(name)) problems.push(`expect.nodes.${name}: no node named ${name}`);
  }
  for (const name of Object.keys(scenario.expect?.events ?? {})) {
    if (!nodes.has(name)) problems.push(`expect.events.${name}: no node named ${name}`);
  }
  scenario.expect?.lifecycleActions?.forEach((a, i) => {
    if (!ids.has(a.instance)) problems.push(`expect.lifecycleActions[${i}].instance: no instance ${a.instance}`);
  });
  scenario.expect?.repairs?.forEach((r, i) => {
    if (!ids.has(r.instance)) problems.push(`expect.repairs[${i}].instance: no instance ${r.instance}`);
  });
  scenario.chaos?.deadlineBound.forEach((d, i) => {
    if (d.node !== undefined && !nodes.has(d.node))
      problems.push(`chaos.deadlineBound[${i}].node: no node named ${d.node}`);
    if (d.instance !== undefined && !ids.has(d.instance))
      problems.push(`chaos.deadlineBound[${i}].instance: no instance ${d.instance}`);
  });
  return problems;
}

/**
 * JSON is YAML, but the YAML parser takes ~30 s over a 100,000-node scenario that JSON.parse reads in
 * a fraction of a second: text that looks like a JSON object is read as JSON first, and only if that
 * fails as YAML (whose errors then say where).
 */
function parseText(text: string): unknown {
  if (text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // a YAML flow mapping, or broken JSON: the YAML parser says which, and where
    }
  }
  return parseYaml(text);
}

/** Parses and validates a scenario (YAML or JSON text). */
export function parseScenario(text: string, file: string): Scenario {
  let raw: unknown;
  try {
    raw = parseText(text);
  } catch (error) {
    throw new ScenarioError(file, [`not YAML or JSON: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const parsed = ScenarioSchema.safeParse(raw);
  if (!parsed.success) throw new ScenarioError(file, parsed.error.issues.map(issueText));
  const dangling = danglingReferences(parsed.data);
  if (dangling.length > 0) throw new ScenarioError(file, dangling);
  return parsed.data;
}

export async function loadScenario(file: string): Promise<LoadedScenario> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(file, [`cannot read: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const scenario = parseScenario(text, file);
  const baseDir = dirname(path);
  const problems = await unreadableEventFiles(scenario, baseDir);
  if (problems.length > 0) throw new ScenarioError(file, problems);
  return { scenario, baseDir, file };
}

/**
 * The event files of the steps that cannot be read as their step reads them (JSON; an array for
 * `events`), found before anything runs rather than when the step comes.
 */
async function unreadableEventFiles(scenario: Scenario, baseDir: string): Promise<string[]> {
  const problems = await Promise.all(
    scenario.steps.map(async (step, i): Promise<string | undefined> => {
      const [key, named] =
        'event' in step && 'file' in step.event
          ? ['event', step.event.file]
          : 'events' in step && 'file' in step.events
            ? ['events', step.events.file]
            : [];
      if (key === undefined || named === undefined) return undefined;
      const where = `steps[${i}].${key}.file`;
      let text: string;
      try {
        text = await readFile(resolve(baseDir, named), 'utf8');
      } catch (error) {
        return `${where}: cannot read ${named}: ${error instanceof Error ? error.message : String(error)}`;
      }
      try {
        const parsed = JSON.parse(text) as unknown;
        if (key === 'events' && !Array.isArray(parsed)) return `${where}: ${named} is not a JSON array of events`;
      } catch (error) {
        return `${where}: ${named} is not JSON: ${error instanceof Error ? error.message : String(error)}`;
      }
      return undefined;
    }),
  );
  return problems.filter((p): p is string => p !== undefined);
}
