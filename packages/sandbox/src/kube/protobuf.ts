// Protobuf request bodies (`application/vnd.kubernetes.protobuf`), which kubectl ≥1.32 sends for
// some built-in kinds (access reviews: `kubectl auth can-i`, `--list`, `whoami`). The body is the
// `k8s\0` magic and a runtime.Unknown {typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2}, raw being
// the object's own message. The emulator decodes the review kinds (the fields it reads) into their
// JSON shape; other kinds are refused with 415, as it does not carry their schemas.
import { badRequest, StatusError } from './errors.js';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Field number → the last value of each field (length-delimited as bytes, varints as numbers). */
type Fields = Map<number, Buffer | number>;

function readVarint(buffer: Buffer, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  let offset = at;
  for (;;) {
    const byte = buffer[offset];
    if (byte === undefined) throw badRequest("couldn't decode the protobuf body: truncated varint");
    offset++;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, offset];
    shift += 7;
    if (shift > 63) throw badRequest("couldn't decode the protobuf body: varint too long");
  }
}

function fields(buffer: Buffer): Fields {
  const out: Fields = new Map();
  let at = 0;
  while (at < buffer.length) {
    const [key, next] = readVarint(buffer, at);
    at = next;
    const field = Math.floor(key / 8);
    switch (key % 8) {
      case 0: {
        const [value, after] = readVarint(buffer, at);
        out.set(field, value);
        at = after;
        break;
      }
      case 1:
        at += 8;
        break;
      case 2: {
        const [length, after] = readVarint(buffer, at);
        if (after + length > buffer.length) throw badRequest("couldn't decode the protobuf body: truncated field");
        out.set(field, buffer.subarray(after, after + length));
        at = after + length;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        throw badRequest(`couldn't decode the protobuf body: wire type ${key % 8}`);
    }
  }
  return out;
}

const message = (f: Fields, n: number): Fields | undefined => {
  const value = f.get(n);
  return Buffer.isBuffer(value) ? fields(value) : undefined;
};
const text = (f: Fields | undefined, n: number): string | undefined => {
  const value = f?.get(n);
  return Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
};

/** Only the string fields present, as the JSON shape omits empty ones. */
function strings(f: Fields | undefined, names: readonly string[]): Record<string, string> | undefined {
  if (f === undefined) return undefined;
  const out: Record<string, string> = {};
  names.forEach((name, i) => {
    const value = text(f, i + 1);
    if (value !== undefined && value !== '') out[name] = value;
  });
  return out;
}

/** The JSON text of a protobuf-encoded request body for `resource` (its plural); 415 for kinds the emulator does not decode. */
export function protobufBodyToJson(body: Buffer, resource: string): string {
  const supported = ['selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'selfsubjectreviews'];
  if (!supported.includes(resource)) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (the emulator decodes ${PROTOBUF} for ${supported.join(', ')} only)`,
    );
  }
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC))
    throw badRequest(`couldn't decode the protobuf body: no k8s magic prefix`);
  const unknown = fields(body.subarray(MAGIC.length));
  const typeMeta = message(unknown, 1);
  const object = message(unknown, 2) ?? new Map<number, Buffer | number>();
  const spec = message(object, 2);
  const json: Record<string, unknown> = { apiVersion: text(typeMeta, 1) ?? '', kind: text(typeMeta, 2) ?? '' };
  if (resource === 'selfsubjectaccessreviews') {
    const resourceAttributes = strings(spec === undefined ? undefined : message(spec, 1), [
      'namespace',
      'verb',
      'group',
      'version',
      'resource',
      'subresource',
      'name',
    ]);
    const nonResourceAttributes = strings(spec === undefined ? undefined : message(spec, 2), ['path', 'verb']);
    json['spec'] = {
      ...(resourceAttributes ? { resourceAttributes } : {}),
      ...(nonResourceAttributes ? { nonResourceAttributes } : {}),
    };
  } else if (resource === 'selfsubjectrulesreviews') {
    json['spec'] = strings(spec, ['namespace']) ?? {};
  }
  return JSON.stringify(json);
}
