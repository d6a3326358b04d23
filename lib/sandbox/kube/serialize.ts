// JSON for responses. Node lists are most of the bytes an emulator sends, and most of a Node is
// its status.images list, which builders share between nodes: that part is serialized once.
import { NODE_IMAGES } from './builders.js';
import { isRecord } from './types.js';

const IMAGES_JSON = JSON.stringify(NODE_IMAGES);
const MARK = '\u0000shared-images\u0000';
const MARK_JSON = JSON.stringify(MARK);

function objectJson(value: unknown): string {
  if (isRecord(value) && isRecord(value['status']) && value['status']['images'] === NODE_IMAGES) {
    return JSON.stringify({ ...value, status: { ...value['status'], images: MARK } }).replace(MARK_JSON, IMAGES_JSON);
  }
  return JSON.stringify(value);
}

/** JSON.stringify, faster for bodies made of (lists of) built Nodes. */
export function toJson(body: unknown): string {
  if (isRecord(body) && Array.isArray(body['items'])) {
    const { items, ...envelope } = body;
    const head = JSON.stringify(envelope);
    const parts = items.map(objectJson);
    return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"items":[${parts.join(',')}]}`;
  }
  return objectJson(body);
}
