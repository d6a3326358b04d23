// JSON for responses. Node lists are most of the bytes an emulator sends, and most of a Node is
// its status.images list, which builders share between nodes: that part is serialized and
// UTF-8 encoded once, and each answer is assembled from byte chunks (a 500-Node page is 5 MB, of
// which 3.5 MB are images), so the emulator spends its time on what differs between Nodes.
import { NODE_IMAGES } from './builders.js';
import { isRecord } from './types.js';

const IMAGES_BYTES = Buffer.from(JSON.stringify(NODE_IMAGES));
const MARK = '\u0000shared-images\u0000';
const MARK_JSON = JSON.stringify(MARK);

/** One object as byte chunks: the shared images spliced in where the object holds them. */
function objectChunks(value: unknown, out: Buffer[]): void {
  if (isRecord(value) && isRecord(value['status']) && value['status']['images'] === NODE_IMAGES) {
    const text = JSON.stringify({ ...value, status: { ...value['status'], images: MARK } });
    const at = text.indexOf(MARK_JSON);
    out.push(Buffer.from(text.slice(0, at)), IMAGES_BYTES, Buffer.from(text.slice(at + MARK_JSON.length)));
    return;
  }
  out.push(Buffer.from(JSON.stringify(value)));
}

/** The UTF-8 JSON of a body, faster for bodies made of (lists of) built Nodes. */
export function toJsonBytes(body: unknown): Buffer {
  const chunks: Buffer[] = [];
  if (isRecord(body) && Array.isArray(body['items'])) {
    const { items, ...envelope } = body;
    const head = JSON.stringify(envelope);
    chunks.push(Buffer.from(`${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"items":[`));
    items.forEach((item: unknown, i) => {
      if (i > 0) chunks.push(COMMA);
      objectChunks(item, chunks);
    });
    chunks.push(CLOSE);
  } else objectChunks(body, chunks);
  return Buffer.concat(chunks);
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** The JSON text of a body (toJsonBytes, decoded). */
export function toJson(body: unknown): string {
  return toJsonBytes(body).toString('utf8');
}
