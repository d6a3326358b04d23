// A chaos seed replays exactly: a fault is decided by the seed and the request's identity (caller,
// operation, how many such requests came before), never by what the request carries (a Node's uid,
// a deadline or an event's time, which differ from run to run) nor by the moment it comes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dice } from '@ec2-node-reconciler/sandbox/chaos/dice.js';
import { armChaos } from '@ec2-node-reconciler/sandbox/chaos/inject.js';
import { ISSUE_16_CHAOS } from '@ec2-node-reconciler/sandbox/chaos/profile.js';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { startSandbox, type Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';

const SEED = 3_799_633_435;
/** A caller that is not the operator: a function role's session. */
const CALLER = 'ASIAFUNCTIONROLE0001';
const CALLS = 40;

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox(
    parseScenario(
      `
name: chaos-replay
start: 2026-11-29T12:00:00Z
cluster: { name: demo, region: eu-west-1, accountId: "111122223333" }
instances: []
nodes: []
`,
      'chaos-replay.yaml',
    ),
  );
});

afterAll(async () => {
  await sandbox.close();
});

/** One run's decisions for CALLS calls of each kind, each carrying what differs in every run (`run`). */
function decisionsOf(run: number): string[] {
  const armed = armChaos(sandbox, ISSUE_16_CHAOS, new Dice(SEED));
  try {
    const sweep = sandbox.lambda.hosts.get(sandbox.functions.sweep);
    if (!sweep?.crashes) throw new Error('chaos armed no crash plan on the sweep function');
    const crashes = sweep.crashes;
    return Array.from({ length: CALLS }, (_, n) => {
      const uid = `${run}-uid-${n}`;
      const at = Date.parse('2026-11-29T12:00:00Z') + run * 511 + n;
      const describe = sandbox.aws.faults.decide('ec2', 'DescribeInstances', {
        accessKeyId: CALLER,
        params: { Filters: [{ Name: 'tag:eks:cluster-name', Values: ['demo'] }], NextToken: `${run}:${n}` },
      });
      const start = sandbox.aws.faults.decide('states', 'StartExecution', {
        accessKeyId: CALLER,
        params: {
          name: `demo-i-0a-${n}`,
          input: JSON.stringify({ nodeUid: uid, deadline: new Date(at).toISOString() }),
        },
      });
      const crash = crashes({ functionName: sandbox.functions.sweep, requestId: `request-${n}`, at });
      return `${describe?.kind ?? '-'} ${start?.kind ?? '-'} ${crash ?? '-'}`;
    });
  } finally {
    armed.disarm();
  }
}

describe('chaos replay', () => {
  it('should inject the same faults for the same seed, whatever the requests carry and whenever they come', () => {
    const first = decisionsOf(1);
    const second = decisionsOf(2);

    expect(second).toEqual(first);
    // Not vacuous: the profile's rates did inject faults.
    expect(first.some((d) => d !== '- - -')).toBe(true);
  });
});
