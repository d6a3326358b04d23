// Every scenario in test/scenarios/ runs through the sandbox (the same engine `simulate` uses, in
// process) and every expectation it states must hold. A scenario that documents a known reconciler
// bug (a `# KNOWN BUG:` comment, its expectation stating the correct behaviour) is expected to fail
// until the bug is fixed: the test then tells you to remove the comment.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { main } from '../cli/main.js';
import { loadScenario, parseScenario, ScenarioError } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { describeDenial } from '@ec2-node-reconciler/sandbox/simulate/denials.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { DEMO_FILE, demoScenarioYaml } from '../scripts/make-demo-scenario.js';
import { scaleInstanceId, scaleScenarioText } from '../scripts/make-scale-scenario.js';
import { cliOperator } from '../cli/simulation-operator.js';

const DIR = fileURLToPath(new URL('./scenarios/', import.meta.url));
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
  .sort();
const KNOWN_BUG = /^#\s*KNOWN BUG:/m;

async function failuresOf(file: string): Promise<string[]> {
  const loaded = await loadScenario(join(DIR, file));
  if (!loaded.scenario.expect) return [`${file}: states no expectations (every scenario needs \`expect\`)`];
  const { simulation } = await simulate(loaded, { operator: cliOperator });
  // A call the deployed IAM policies or the shipped RBAC refused is a defect unless the scenario expects it.
  const denied =
    loaded.scenario.expect.denied === undefined && simulation.denied.length > 0
      ? [`denied: ${simulation.denied.map(describeDenial).join('; ')} (say \`denied: N\` if the scenario means it)`]
      : [];
  return [...(simulation.expectations?.failures ?? []), ...denied];
}

describe('test/scenarios', () => {
  it('holds the demo and at least 25 scenarios besides it and the two examples', () => {
    expect(FILES).toContain('demo.yaml');
    expect(FILES.length).toBeGreaterThanOrEqual(28);
  });

  it('demo.yaml is what scripts/make-demo-scenario.ts generates (run it after editing the script)', () => {
    expect(readFileSync(DEMO_FILE, 'utf8')).toBe(demoScenarioYaml());
  });

  for (const file of FILES) {
    const knownBug = KNOWN_BUG.test(readFileSync(join(DIR, file), 'utf8'));
    if (knownBug) {
      it(`${file} (KNOWN BUG: expected to fail until fixed)`, async () => {
        const failures = await failuresOf(file);
        expect(failures, `${file} passes now: the bug is fixed, remove its "# KNOWN BUG:" comment`).not.toEqual([]);
      });
    } else {
      it(file, async () => {
        const failures = await failuresOf(file);
        // The message lists every failed expectation, one per line.
        expect(failures, `${file}:\n  ✗ ${failures.join('\n  ✗ ')}`).toEqual([]);
      });
    }
  }
});

describe('scripts/make-scale-scenario.ts', () => {
  it('should generate a scenario whose expectations hold: a divergence every thousand machines, the rest in sync', async () => {
    const scenario = parseScenario(scaleScenarioText({ nodes: 3000 }), 'scale-3000.json');

    const { simulation } = await simulate(
      { scenario, baseDir: '.', file: 'scale-3000.json' },
      { operator: cliOperator },
    );

    expect(simulation.expectations?.failures).toEqual([]);
    expect(simulation.before.conditions).toMatchObject({
      'in-sync': 2997,
      'stale-object': 1,
      'stopped-machine': 1,
      'unregistered-machine': 1,
    });
    // 3,000 machines: ~20 s on a quiet 2-core machine, three times that when it is shared.
  }, 180_000);

  it('should give every machine its own id, well past 2^53 worth of indexes', () => {
    const ids = new Set([0, 1, 2 ** 24 - 1, 2 ** 40, 2 ** 44 - 1].map(scaleInstanceId));
    expect(ids.size).toBe(5);
    for (const id of ids) expect(id).toMatch(/^i-0[0-9a-f]{16}$/);
  });
});

describe('a bad scenario file is refused before anything runs (exit 2)', () => {
  const VALID = `
name: bad-file-check
start: 2026-11-29T12:00:00Z
cluster: { name: demo, region: eu-west-1, accountId: "111122223333" }
instances:
  - { id: i-0aa0000000000a101, state: running, zone: eu-west-1a }
nodes:
  - { name: node-a, providerID: "aws:///eu-west-1a/i-0aa0000000000a101" }
pods:
  - { name: web-1, node: node-a, owner: ReplicaSet/web-6d4f }
steps:
  - sweep: {}
  - advance: 5m
expect:
  nodes:
    node-a: untouched
`;

  const problemsOf = (text: string): readonly string[] => problemsOfFile(text, 'bad.yaml');
  const problemsOfFile = (text: string, file: string): readonly string[] => {
    try {
      parseScenario(text, file);
    } catch (error) {
      if (error instanceof ScenarioError) return error.problems;
      throw error;
    }
    throw new Error('the scenario was accepted');
  };

  it('accepts the valid base', () => {
    expect(() => parseScenario(VALID, 'ok.yaml')).not.toThrow();
  });

  it('names the path of an unknown key', () => {
    const problems = problemsOf(VALID.replace('providerID:', 'providerId:'));
    expect(problems).toContainEqual(expect.stringContaining('nodes[0].providerId: unknown key'));
    expect(problemsOf(VALID.replace('expect:', 'expected:'))).toContainEqual(
      expect.stringContaining('expected: unknown key'),
    );
    expect(problemsOf(VALID.replace('node-a: untouched', 'node-a: { exist: true }'))).toEqual([
      'expect.nodes.node-a.exist: unknown key',
    ]);
    // A step is one of several shapes: the unknown one is still named, and so is a bad key inside the
    // shape it is meant as.
    expect(problemsOf(VALID.replace('advance: 5m', 'wait: 5m'))).toEqual(['steps[1].wait: unknown key']);
    expect(problemsOf(VALID.replace('advance: 5m', 'drain: { node: node-a, reasn: x }'))).toEqual([
      'steps[1].drain.reasn: unknown key',
    ]);
    expect(problemsOf(VALID.replace('advance: 5m', 'event: { file: a.json, inlin: {} }'))).toEqual([
      'steps[1].event.inlin: unknown key',
    ]);
    expect(problemsOf(VALID.replace('node-a: untouched', 'node-a: deleteed'))).toEqual([
      'expect.nodes.node-a: Invalid option: expected one of "deleted"|"present"|"cordoned"|"drained"|"untouched"',
    ]);
  });

  it('refuses before anything runs what seeding the emulators would refuse, naming where', () => {
    const instance = '{ id: i-0aa0000000000a101, state: running, zone: eu-west-1a }';
    const withInstance = (text: string) => VALID.replace(instance, text);
    expect(problemsOf(withInstance('{ id: i-0aa0000000000a101, state: running, zone: us-east-1a }'))).toEqual([
      "instances[0].zone: us-east-1a is not in the cluster's region eu-west-1",
    ]);
    expect(problemsOf(withInstance('{ id: i-0aa0000000000a101, state: running, zone: eu-west-1 }'))).toEqual([
      'instances[0].zone: must be an availability zone such as us-east-1a, us-east-1-bos-1a or us-east-1-wl1-bos-wlz-1',
    ]);
    const member = (autoScaling: string) =>
      problemsOf(
        withInstance(`{ id: i-0aa0000000000a101, state: running, zone: eu-west-1a, autoScaling: ${autoScaling} }`),
      );
    expect(member('{ group: ng, hook: "drain hook" }')).toEqual([
      'instances[0].autoScaling.hook: must be letters, digits, -, _ and / only',
    ]);
    expect(member('{ group: ng, hook: h, heartbeatTimeout: 10s }')).toEqual([
      'instances[0].autoScaling.heartbeatTimeout: must be between 30s and 2h',
    ]);
    expect(member('{ group: ng, lifecycleState: "Terminating:Wait" }')).toEqual([
      'instances[0].autoScaling.hook: is required with lifecycleState Terminating:Wait',
    ]);
    expect(member('{ group: ng, hook: h, token: t }')).toEqual([
      'instances[0].autoScaling.token: needs a pending lifecycle action (a :Wait lifecycleState)',
    ]);
    expect(member('{ group: ng, lifecycleState: "Warmed:Stopped" }')).toEqual([
      'instances[0].autoScaling.lifecycleState: a Warmed:Stopped member is stopped to EC2, not running',
    ]);
    // One hook, one timeout, default result and transition, whichever members write them: one left out
    // is the others', one written otherwise would be ignored.
    const members = (...autoScaling: string[]) =>
      problemsOf(
        withInstance(
          autoScaling
            .map(
              (a, i) =>
                `${i === 0 ? '' : '  - '}{ id: i-0aa0000000000a10${i + 1}, state: running, zone: eu-west-1a, autoScaling: ${a} }`,
            )
            .join('\n'),
        ),
      );
    expect(() =>
      members(
        '{ group: ng, hook: h, heartbeatTimeout: 5m }',
        '{ group: ng, hook: h }',
        '{ group: ng, hook: h, heartbeatTimeout: 5m }',
      ),
    ).toThrow('the scenario was accepted');
    expect(
      members(
        '{ group: ng, hook: h }',
        '{ group: ng, hook: h, heartbeatTimeout: 30m, defaultResult: CONTINUE }',
        '{ group: ng, hook: h, heartbeatTimeout: 5m, defaultResult: ABANDON, lifecycleState: "Pending:Wait" }',
        '{ group: ng, hook: h, lifecycleState: "Terminating:Wait" }',
        '{ group: other, hook: h, heartbeatTimeout: 5m }',
      ),
    ).toEqual([
      'instances[2].autoScaling.heartbeatTimeout: hook h of group ng is defined by instances[1] with 30m (a hook has one timeout)',
      'instances[2].autoScaling.defaultResult: hook h of group ng is defined by instances[1] with CONTINUE (a hook has one default result)',
      'instances[3].autoScaling.lifecycleState: hook h of group ng is defined by instances[2] as a launching hook (a hook has one transition)',
    ]);
    // A warm pool's members wait on the group's hooks too: Warmed:Pending:Wait is a launch.
    expect(
      members(
        '{ group: ng, hook: h, lifecycleState: "Warmed:Pending:Wait" }',
        '{ group: ng, hook: h, lifecycleState: "Terminating:Wait" }',
      ),
    ).toEqual([
      'instances[1].autoScaling.lifecycleState: hook h of group ng is defined by instances[0] as a launching hook (a hook has one transition)',
    ]);
    expect(problemsOf(VALID.replace('name: demo', 'name: "demo cluster"'))).toEqual([
      'cluster.name: must be an EKS cluster name',
    ]);
    expect(problemsOf(VALID.replace('region: eu-west-1', 'region: europe'))).toEqual([
      'cluster.region: must be an AWS region such as us-east-1',
    ]);
  });

  it('refuses a bad duration, naming where', () => {
    expect(problemsOf(VALID.replace('advance: 5m', 'advance: 5 minutes'))).toEqual([
      'steps[1].advance: must be a duration such as 30s, 5m, 2h or 3d',
    ]);
    expect(problemsOf(VALID.replace('zone: eu-west-1a }', 'zone: eu-west-1a, launchedAgo: 2 hours }'))).toContainEqual(
      expect.stringMatching(/^instances\[0\]\.launchedAgo: .*duration/),
    );
  });

  it('refuses a pod on a node the scenario does not have', () => {
    expect(problemsOf(VALID.replace('node: node-a,', 'node: node-b,'))).toEqual(['pods[0].node: no node named node-b']);
  });

  it('refuses an expectation about a node the scenario does not have', () => {
    expect(problemsOf(VALID.replace('    node-a: untouched', '    node-a: untouched\n    node-z: deleted'))).toEqual([
      'expect.nodes.node-z: no node named node-z',
    ]);
  });

  it('reads a JSON scenario without the YAML parser, with the same checks and the same messages', () => {
    const json = JSON.stringify(parseYaml(VALID));
    const wrong = JSON.stringify(parseYaml(VALID.replace('providerID:', 'providerId:')));

    expect(parseScenario(json, 'ok.json')).toEqual(parseScenario(VALID, 'ok.yaml'));
    expect(problemsOfFile(wrong, 'bad.json')).toContainEqual(
      expect.stringContaining('nodes[0].providerId: unknown key'),
    );
    // A flow mapping is YAML, not JSON: it still reads.
    expect(
      parseScenario(
        `{ name: flow, cluster: { name: demo, region: eu-west-1, accountId: "111122223333" } }`,
        'flow.yaml',
      ).name,
    ).toBe('flow');
  });

  describe('through the CLI', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenarios-test-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('simulate exits 2 and names the key', async () => {
      const file = join(dir, 'typo.yaml');
      writeFileSync(file, VALID.replace('pods:', 'podz:'));
      let stderr = '';
      const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        stderr += String(chunk);
        return true;
      });
      try {
        expect(await main(['simulate', file])).toBe(2);
      } finally {
        spy.mockRestore();
      }
      expect(stderr).toContain('podz: unknown key');
    });

    it('loadScenario refuses a file it cannot read', async () => {
      await expect(loadScenario(join(dir, 'missing.yaml'))).rejects.toBeInstanceOf(ScenarioError);
    });

    it('loadScenario refuses an event file its step could not read, naming the step, before anything runs', async () => {
      writeFileSync(join(dir, 'not-json.json'), '{ "detail-type": ');
      writeFileSync(join(dir, 'one.json'), '{}');
      const file = join(dir, 'events.yaml');
      writeFileSync(
        file,
        VALID.replace(
          '  - advance: 5m',
          '  - event: { file: gone.json }\n  - event: { file: not-json.json }\n  - events: { file: one.json }\n  - event: { file: one.json }',
        ),
      );
      const problems = await loadScenario(file).then(
        () => [],
        (error: unknown) => (error instanceof ScenarioError ? error.problems : [String(error)]),
      );
      expect(problems).toEqual([
        expect.stringMatching(/^steps\[1\]\.event\.file: cannot read gone\.json: .*ENOENT/),
        expect.stringMatching(/^steps\[2\]\.event\.file: not-json\.json is not JSON: /),
        'steps[3].events.file: one.json is not a JSON array of events',
      ]);
    });
  });
});
