// A tag scanner for the large, regular XML answers of EC2 and Auto Scaling listings. The SDK's
// generic deserializer builds every field of every item as objects before we keep a handful; this
// walks the tags once and hands a reader the few it asks for, skipping the rest unbuilt. It knows
// elements and text only: anything else it cannot vouch for (CDATA, a doctype) raises
// UnexpectedXml, and callers then let the SDK read the answer instead.

export class UnexpectedXml extends Error {
  override readonly name = 'UnexpectedXml';
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

/** A flat copy of a (possibly sliced) string: a V8 slice of 13 characters or more is a view that keeps its whole page alive. */
const detach = (text: string): string => (text.length < 13 ? text : (' ' + text).slice(1));

/** What a reader sees of the document: elements as they open and close. */
export interface XmlVisitor {
  /**
   * Whether the children of the element at `depth` (named `path[depth]`) are worth naming. Their
   * names are sliced only if so; below an element that does not matter, tags are just counted.
   */
  descend(depth: number, path: readonly string[]): boolean;
  /** An element opened at `depth` (the document element is 1); `text()` reads its text if it is a leaf. */
  open(depth: number, path: readonly string[], text: () => string): void;
  /** The element at `depth` (named `path[depth]`, if it was named) closes. */
  close(depth: number, path: readonly string[]): void;
}

/**
 * Walks `xml`, whose document element must be `root`, calling the visitor for every named element.
 * Text is returned as strings of their own (never views into `xml`), entities decoded.
 */
export function scanXml(xml: string, root: string, visitor: XmlVisitor): void {
  const path: string[] = [''];
  // The depth down to which elements are named; deeper ones are only counted.
  let named = 0;
  let depth = 0;
  let pos = 0;
  let leafFrom = 0;
  let leafEmpty = false;
  const text = (): string => {
    if (leafEmpty) return '';
    const end = xml.indexOf('<', leafFrom);
    return detach(decode(xml.slice(leafFrom, end < 0 ? xml.length : end)));
  };
  for (;;) {
    const lt = xml.indexOf('<', pos);
    if (lt < 0) break;
    const next = xml.charCodeAt(lt + 1);
    if (next === 63 /* ? */) {
      const end = xml.indexOf('?>', lt);
      if (end < 0) throw new UnexpectedXml('unterminated declaration');
      pos = end + 2;
      continue;
    }
    if (next === 33 /* ! */) {
      if (!xml.startsWith('<!--', lt)) throw new UnexpectedXml('CDATA or a doctype');
      const end = xml.indexOf('-->', lt);
      if (end < 0) throw new UnexpectedXml('unterminated comment');
      pos = end + 3;
      continue;
    }
    const gt = xml.indexOf('>', lt);
    if (gt < 0) throw new UnexpectedXml('unterminated tag');
    pos = gt + 1;
    if (next === 47 /* / */) {
      if (depth <= named + 1) {
        visitor.close(depth, path);
        named = depth - 1;
      }
      depth--;
      if (depth < 0) throw new UnexpectedXml('a closing tag with nothing open');
      continue;
    }
    const selfClosing = xml.charCodeAt(gt - 1) === 47;
    const opened = depth + 1;
    if (opened > named + 1) {
      if (!selfClosing) depth = opened;
      continue;
    }
    let nameEnd = lt + 1;
    for (
      let c = xml.charCodeAt(nameEnd);
      c !== 32 && c !== 62 && c !== 47 && c !== 9 && c !== 10 && c !== 13;
      c = xml.charCodeAt(++nameEnd)
    );
    const name = xml.slice(lt + 1, nameEnd);
    if (opened === 1 && name !== root) throw new UnexpectedXml(`a ${name} document, not ${root}`);
    path[opened] = name;
    leafFrom = pos;
    leafEmpty = selfClosing;
    visitor.open(opened, path, text);
    if (selfClosing) {
      visitor.close(opened, path);
      continue;
    }
    depth = opened;
    if (visitor.descend(opened, path)) named = opened;
  }
  if (depth !== 0) throw new UnexpectedXml('the document ends inside an element');
}
