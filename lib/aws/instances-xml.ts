// EC2's DescribeInstances XML read straight into the reconciler's InstanceView (see xml-scan.ts):
// the SDK's generic deserializer builds all ~50 fields of every instance (network interfaces, block
// devices, metadata options…) before we keep seven, about 100 µs per instance and most of a
// 100,000-node sweep's CPU.
import { isInstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { InstanceView } from '@ec2-node-reconciler/model/observation.js';
import { INSTANCE_STATES, type InstanceState } from '@ec2-node-reconciler/model/instance-states.js';
import { scanXml } from './xml-scan.js';

export { UnexpectedXml as UnexpectedInstancesXml } from './xml-scan.js';

export interface InstancesPage {
  readonly instances: InstanceView[];
  readonly nextToken?: string;
}

const isState = (value: string | undefined): value is InstanceState =>
  (INSTANCE_STATES as readonly (string | undefined)[]).includes(value);

/** The fields of one instance as they are read; turned into an InstanceView (or dropped) at its end. */
interface Draft {
  id?: string;
  state?: string;
  zone?: string;
  privateDnsName?: string;
  launchTime?: string;
  lifecycle?: string;
  tags: Record<string, string>;
  tagKey?: string;
  tagValue?: string;
}

/** The same projection as toInstanceView: undefined for anything it cannot trust (no valid id or state). */
function finish(draft: Draft): InstanceView | undefined {
  const { id, state } = draft;
  if (!isInstanceId(id) || !isState(state)) return undefined;
  const launchedAt = draft.launchTime === undefined ? Number.NaN : Date.parse(draft.launchTime);
  return {
    id,
    state,
    zone: draft.zone ?? '',
    ...(draft.privateDnsName ? { privateDnsName: draft.privateDnsName } : {}),
    launchedAt: Number.isNaN(launchedAt) ? 0 : launchedAt,
    tags: draft.tags,
    spot: draft.lifecycle === 'spot',
    scheduledEvents: [],
  };
}

// Depths, the document element being 1: reservationSet 2, its item 3, instancesSet 4, an instance 5,
// an instance's fields 6, their children 7 (instanceState/name, placement/availabilityZone,
// tagSet/item), a tag's key and value 8.
const INSTANCE = 5;

/** Reads one DescribeInstances page. Throws UnexpectedInstancesXml for a document it does not know. */
export function parseInstancesPage(xml: string): InstancesPage {
  const instances: InstanceView[] = [];
  let nextToken: string | undefined;
  let draft: Draft | undefined;
  // Tag keys and values, zones and states repeat across a cluster's instances: one string each.
  const seen = new Map<string, string>();
  const intern = (text: string): string => {
    const known = seen.get(text);
    if (known !== undefined) return known;
    seen.set(text, text);
    return text;
  };
  scanXml(xml, 'DescribeInstancesResponse', {
    descend(depth, path) {
      const name = path[depth];
      switch (depth) {
        case 1:
          return true;
        case 2:
          return name === 'reservationSet';
        case 3:
          return name === 'item';
        case 4:
          return name === 'instancesSet';
        case 5:
          return name === 'item';
        case 6:
          return name === 'instanceState' || name === 'placement' || name === 'tagSet';
        case 7:
          return path[6] === 'tagSet' && name === 'item';
        default:
          return false;
      }
    },
    open(depth, path, text) {
      const name = path[depth];
      if (depth === 2) {
        if (name === 'nextToken') nextToken = text() || undefined;
      } else if (depth === INSTANCE) {
        draft = { tags: {} };
      } else if (!draft) {
        return;
      } else if (depth === 6) {
        if (name === 'instanceId') draft.id = text();
        else if (name === 'privateDnsName') draft.privateDnsName = text();
        else if (name === 'launchTime') draft.launchTime = text();
        else if (name === 'instanceLifecycle') draft.lifecycle = text();
      } else if (depth === 7) {
        if (path[6] === 'instanceState' && name === 'name') draft.state = intern(text());
        else if (path[6] === 'placement' && name === 'availabilityZone') draft.zone = intern(text());
      } else if (depth === 8) {
        if (name === 'key') draft.tagKey = intern(text());
        else if (name === 'value') draft.tagValue = intern(text());
      }
    },
    close(depth, path) {
      if (!draft) return;
      if (depth === INSTANCE) {
        const view = finish(draft);
        if (view) instances.push(view);
        draft = undefined;
      } else if (depth === 7 && path[6] === 'tagSet') {
        if (draft.tagKey !== undefined) draft.tags[draft.tagKey] = draft.tagValue ?? '';
        draft.tagKey = undefined;
        draft.tagValue = undefined;
      }
    },
  });
  return { instances, ...(nextToken ? { nextToken } : {}) };
}
