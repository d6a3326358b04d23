// Most of a Node's JSON is status.images (every image the kubelet has pulled: ~70% of a 10 KB
// Node), which the reconciler never reads. Decoding and parsing it costs most of a 100,000-Node
// list. This empties such arrays in the raw bytes before anything is decoded or parsed: the
// answer read is the same JSON with `"images":[]`. It is a plain JSON scan (strings and their
// escapes honoured), so it is exact for any input; an answer it cannot follow (unbalanced) is
// decoded whole, and the parser then says what is wrong with it.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

const isSpace = (byte: number | undefined): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * The position of the bracket closing the array that opens at `at`, or -1 when it does not close.
 * One tight loop over the bytes (strings and their escapes skipped inline): a native search per
 * string costs more in calls than it saves on strings of a hundred bytes.
 */
function closingBracket(bytes: Buffer, at: number): number {
  const end = bytes.length;
  let depth = 0;
  for (let i = at; i < end; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      for (i++; i < end; i++) {
        const c = bytes[i];
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) break;
      }
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) depth++;
    else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
      if (depth === 0) return byte === CLOSE_ARRAY ? i : -1;
    }
  }
  return -1;
}

/**
 * The UTF-8 text of `bytes` with the array value of every member named one of `keys` emptied
 * (`"images":[…]` → `"images":[]`), wherever it is. The kept bytes are moved together in place, so
 * `bytes` holds no meaningful content afterwards.
 */
export function textWithoutArrays(bytes: Buffer, keys: readonly string[]): string {
  const cuts: [number, number][] = [];
  for (const key of keys) {
    const needle = Buffer.from(`"${key}":`);
    for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + needle.length)) {
      // A member name follows `{` or `,`: the same bytes inside a string would have escaped quotes.
      let before = at - 1;
      while (isSpace(bytes[before])) before--;
      if (bytes[before] !== OPEN_OBJECT && bytes[before] !== COMMA) continue;
      let open = at + needle.length;
      while (isSpace(bytes[open])) open++;
      if (bytes[open] !== OPEN_ARRAY) continue;
      const close = closingBracket(bytes, open);
      if (close < 0) return bytes.toString('utf8');
      if (close > open + 1) cuts.push([open + 1, close]);
      at = close - needle.length;
    }
  }
  if (cuts.length === 0) return bytes.toString('utf8');
  cuts.sort((a, b) => a[0] - b[0]);
  // The kept bytes moved together and decoded once: a flat string, which JSON.parse reads fastest
  // (a string concatenated from a thousand pieces costs it more than the bytes saved), and no
  // second buffer (see byte-pool.ts for why that matters).
  let kept = 0;
  let from = 0;
  for (const [start, end] of cuts) {
    bytes.copyWithin(kept, from, start);
    kept += start - from;
    from = end;
  }
  bytes.copyWithin(kept, from);
  kept += bytes.length - from;
  return bytes.toString('utf8', 0, kept);
}
