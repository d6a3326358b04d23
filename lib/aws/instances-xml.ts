// EC2's DescribeInstances XML read straight into the reconciler's InstanceView. The SDK's generic
// XML deserializer builds every one of an instance's ~50 fields (network interfaces, block devices,
// metadata options…) as objects before we keep seven of them: about 100 µs per instance, most of
// a 100,000-node sweep's CPU. This scanner walks the tags once, keeps the seven, and skips the rest
// without building them. It knows the document's shape and nothing else; anything it does not
// recognise (another root, CDATA) raises UnexpectedInstancesXml and the caller lets the SDK read
// the page instead, so it can be faster but never less correct.
import { isInstanceId } from '../model/instance-id.js';
import type { InstanceView } from '../model/observation.js';
import { INSTANCE_STATES, type InstanceState } from '../model/signal.js';

export class UnexpectedInstancesXml extends Error {
  override readonly name = 'UnexpectedInstancesXml';
}

export interface InstancesPage {
  readonly instances: InstanceView[];
  readonly nextToken?: string;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML text content: the five named entities and numeric references. */
function decode(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return ENTITIES[ref] ?? whole;
  });
}

const isState = (value: string | undefined): value is InstanceState => (INSTANCE_STATES as readonly (string | undefined)[]).includes(value);

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

/**
 * A leaf's text: from the end of its opening tag to the next tag (its closing one), as a string of
 * its own. V8 makes a longer slice a view into the string it was cut from, so 100,000 instance ids
 * cut from their pages would keep every page (3–4 MB each) alive for the whole sweep; a copy keeps
 * only itself.
 */
function leafText(xml: string, from: number, selfClosing: boolean): string {
  if (selfClosing) return '';
  const end = xml.indexOf('<', from);
  return detach(decode(xml.slice(from, end < 0 ? xml.length : end)));
}

/** A flat copy of a (possibly sliced) string. */
const detach = (text: string): string => (text.length < 13 ? text : (' ' + text).slice(1));

// Depths, the document element being 1: reservationSet 2, its item 3, instancesSet 4, an instance 5,
// an instance's fields 6, their children 7 (instanceState/name, placement/availabilityZone,
// tagSet/item), a tag's key and value 8.
const INSTANCE = 5;

/** Reads one DescribeInstances page. Throws UnexpectedInstancesXml for a document it does not know. */
export function parseInstancesPage(xml: string): InstancesPage {
  const instances: InstanceView[] = [];
  // Tag keys and values, zones and states repeat across a cluster's instances: one string each.
  const seen = new Map<string, string>();
  const intern = (text: string): string => {
    const known = seen.get(text);
    if (known !== undefined) return known;
    seen.set(text, text);
    return text;
  };
  let nextToken: string | undefined;
  // Names of the open elements down to depth 8 (deeper ones are never looked at).
  const path: string[] = [];
  let depth = 0;
  let draft: Draft | undefined;
  let pos = 0;
  for (;;) {
    const lt = xml.indexOf('<', pos);
    if (lt < 0) break;
    const next = xml.charCodeAt(lt + 1);
    if (next === 63 /* ? */) {
      const end = xml.indexOf('?>', lt);
      if (end < 0) throw new UnexpectedInstancesXml('unterminated declaration');
      pos = end + 2;
      continue;
    }
    if (next === 33 /* ! */) {
      if (!xml.startsWith('<!--', lt)) throw new UnexpectedInstancesXml('CDATA or a doctype');
      const end = xml.indexOf('-->', lt);
      if (end < 0) throw new UnexpectedInstancesXml('unterminated comment');
      pos = end + 3;
      continue;
    }
    const gt = xml.indexOf('>', lt);
    if (gt < 0) throw new UnexpectedInstancesXml('unterminated tag');
    pos = gt + 1;
    if (next === 47 /* / */) {
      if (depth === INSTANCE && draft) {
        const view = finish(draft);
        if (view) instances.push(view);
        draft = undefined;
      } else if (depth === 7 && draft && path[6] === 'tagSet') {
        if (draft.tagKey !== undefined) draft.tags[draft.tagKey] = draft.tagValue ?? '';
        draft.tagKey = undefined;
        draft.tagValue = undefined;
      }
      depth--;
      if (depth < 0) throw new UnexpectedInstancesXml('a closing tag with nothing open');
      continue;
    }
    const selfClosing = xml.charCodeAt(gt - 1) === 47;
    const opened = depth + 1;
    if (opened > 8) {
      if (!selfClosing) depth = opened;
      continue;
    }
    // Names only where they matter: every level down to an instance's fields, and below those only
    // inside instanceState, placement and tagSet.
    const relevant = opened <= 6 || (draft !== undefined && (path[6] === 'instanceState' || path[6] === 'placement' || path[6] === 'tagSet'));
    if (!relevant) {
      if (!selfClosing) depth = opened;
      continue;
    }
    let nameEnd = lt + 1;
    for (let c = xml.charCodeAt(nameEnd); c !== 32 && c !== 62 && c !== 47 && c !== 9 && c !== 10 && c !== 13; c = xml.charCodeAt(++nameEnd));
    const name = xml.slice(lt + 1, nameEnd);
    if (opened === 1 && name !== 'DescribeInstancesResponse') throw new UnexpectedInstancesXml(`a ${name} document`);
    path[opened] = name;
    if (opened === INSTANCE && path[2] === 'reservationSet' && path[4] === 'instancesSet') draft = { tags: {} };
    if (opened === 2 && name === 'nextToken') nextToken = leafText(xml, pos, selfClosing) || undefined;
    else if (draft) {
      if (opened === 6) {
        if (name === 'instanceId') draft.id = leafText(xml, pos, selfClosing);
        else if (name === 'privateDnsName') draft.privateDnsName = leafText(xml, pos, selfClosing);
        else if (name === 'launchTime') draft.launchTime = leafText(xml, pos, selfClosing);
        else if (name === 'instanceLifecycle') draft.lifecycle = leafText(xml, pos, selfClosing);
      } else if (opened === 7) {
        if (path[6] === 'instanceState' && name === 'name') draft.state = intern(leafText(xml, pos, selfClosing));
        else if (path[6] === 'placement' && name === 'availabilityZone') draft.zone = intern(leafText(xml, pos, selfClosing));
      } else if (opened === 8 && path[6] === 'tagSet' && path[7] === 'item') {
        if (name === 'key') draft.tagKey = intern(leafText(xml, pos, selfClosing));
        else if (name === 'value') draft.tagValue = intern(leafText(xml, pos, selfClosing));
      }
    }
    if (!selfClosing) depth = opened;
  }
  if (depth !== 0) throw new UnexpectedInstancesXml('the document ends inside an element');
  return { instances, ...(nextToken ? { nextToken } : {}) };
}
