// An operator's tag through the API (`decommission` without --now: CreateTags) reaches the
// reconciler as it does in a real account: EventBridge's `Tag Change on Resource` from aws.tag,
// routed by the stack's rule, taken by the events function, which cordons the Node.
import { CreateTagsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECOMMISSION_TAG } from '@ec2-node-reconciler/model/contract/labels.js';
import { parseScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { applyEventEffects } from '@ec2-node-reconciler/sandbox/simulate/event-effects.js';
import { startSandbox, type Sandbox } from '@ec2-node-reconciler/sandbox/simulate/sandbox.js';

const TAGGED = 'i-0dddddddddddddd01';
const OTHER = 'i-0dddddddddddddd02';
const NODE = 'node-1.ec2.internal';

let sandbox: Sandbox;
let ec2: EC2Client;

beforeAll(async () => {
  sandbox = await startSandbox(
    parseScenario(
      `
name: tag-events
start: 2026-11-29T12:00:00Z
cluster: { name: demo, region: us-east-1, accountId: "111122223333" }
instances:
  - { id: ${TAGGED}, state: running, zone: us-east-1a, tags: { eks:cluster-name: demo, Name: worker-1 } }
  - { id: ${OTHER}, state: running, zone: us-east-1a, tags: { eks:cluster-name: demo } }
nodes:
  - { name: ${NODE}, providerID: "aws:///us-east-1a/${TAGGED}", createdAgo: 2h }
  - { name: node-2.ec2.internal, providerID: "aws:///us-east-1a/${OTHER}", createdAgo: 2h }
`,
      'tag-events.yaml',
    ),
  );
  ec2 = new EC2Client(sandbox.aws.clientConfig());
});

afterAll(async () => {
  ec2.destroy();
  await sandbox.close();
});

const tagEvents = () =>
  sandbox.poller.deliveries
    .map((d) => d.message.event as Record<string, unknown>)
    .filter((e) => e['detail-type'] === 'Tag Change on Resource');

describe('tag changes in the sandbox', () => {
  it('should announce a tag set through the API as a Tag Change on Resource event, which the reconciler takes', async () => {
    await ec2.send(
      new CreateTagsCommand({ Resources: [TAGGED], Tags: [{ Key: DECOMMISSION_TAG, Value: 'disk failing' }] }),
    );
    await sandbox.driver.runUntil(() => sandbox.kube.store.getNode(NODE)?.spec?.unschedulable === true, 'the cordon');

    const [event, ...more] = tagEvents();
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      version: '0',
      source: 'aws.tag',
      account: '111122223333',
      region: 'us-east-1',
      time: '2026-11-29T12:00:00Z',
      resources: [`arn:aws:ec2:us-east-1:111122223333:instance/${TAGGED}`],
      detail: {
        'changed-tag-keys': [DECOMMISSION_TAG],
        service: 'ec2',
        'resource-type': 'instance',
        version: 1,
        tags: { 'eks:cluster-name': 'demo', Name: 'worker-1', [DECOMMISSION_TAG]: 'disk failing' },
      },
    });
  });

  it('should not announce again what a scenario’s own tag-change event did (the event is the world’s input)', () => {
    applyEventEffects(sandbox, {
      version: '0',
      id: 'scenario-tag-change',
      'detail-type': 'Tag Change on Resource',
      source: 'aws.tag',
      account: '111122223333',
      time: '2026-11-29T12:00:00Z',
      region: 'us-east-1',
      resources: [`arn:aws:ec2:us-east-1:111122223333:instance/${OTHER}`],
      detail: {
        'changed-tag-keys': [DECOMMISSION_TAG],
        service: 'ec2',
        'resource-type': 'instance',
        version: 1,
        tags: { [DECOMMISSION_TAG]: 'true' },
      },
    });

    expect(sandbox.aws.state.instances.get(OTHER)?.tags.get(DECOMMISSION_TAG)).toBe('true');
    expect(sandbox.queue.size).toBe(0);
    expect(tagEvents()).toHaveLength(1);
  });
});
