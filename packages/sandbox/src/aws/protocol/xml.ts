/** A minimal XML tree: the query protocols only ever need elements and text. */
export interface XmlElement {
  readonly name: string;
  readonly attributes?: Readonly<Record<string, string>>;
  readonly children: readonly XmlChild[];
}
/** Markup rendered already (by renderFragment): written as it is. */
export interface XmlRaw {
  readonly raw: string;
}
export type XmlChild = XmlElement | string | XmlRaw;
/** What builders accept: absent optional members (undefined) and nested lists flatten away. */
export type XmlInput = XmlChild | undefined | readonly XmlInput[];

function flatten(input: readonly XmlInput[], out: XmlChild[] = []): XmlChild[] {
  for (const item of input) {
    if (item === undefined) continue;
    if (typeof item === 'string' || !Array.isArray(item)) out.push(item as XmlChild);
    else flatten(item, out);
  }
  return out;
}

export function el(name: string, ...children: readonly XmlInput[]): XmlElement {
  return { name, children: flatten(children) };
}

export function elWithAttributes(
  name: string,
  attributes: Record<string, string>,
  ...children: readonly XmlInput[]
): XmlElement {
  return { name, attributes, children: flatten(children) };
}

/** A leaf element, or nothing when the value is absent (optional members are omitted, never empty). */
export function leaf(name: string, value: string | number | boolean | undefined): XmlElement | undefined {
  return value === undefined ? undefined : el(name, String(value));
}

/** A list member: `<name><item>…</item>…</name>`, empty lists still rendered (`<name/>`) as AWS does. */
export function list<T>(
  name: string,
  items: readonly T[],
  render: (item: T) => readonly XmlInput[],
  itemName = 'item',
): XmlElement {
  return el(
    name,
    items.map((item) => el(itemName, ...render(item))),
  );
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
/** Text keeps its quotes (as AWS writes messages such as `Invalid id: "i-1"`); attributes escape them too. */
export function escapeXml(text: string, inAttribute = false): string {
  return text.replace(inAttribute ? /[&<>"]/g : /[&<>]/g, (c) => ESCAPES[c] ?? c);
}

function render(root: XmlElement, parts: string[]): string {
  const write = (node: XmlChild): void => {
    if (typeof node === 'string') {
      parts.push(escapeXml(node));
      return;
    }
    if ('raw' in node) {
      parts.push(node.raw);
      return;
    }
    const attrs = Object.entries(node.attributes ?? {})
      .map(([k, v]) => ` ${k}="${escapeXml(v, true)}"`)
      .join('');
    if (node.children.length === 0) {
      parts.push(`<${node.name}${attrs}/>`);
      return;
    }
    parts.push(`<${node.name}${attrs}>`);
    node.children.forEach(write);
    parts.push(`</${node.name}>`);
  };
  write(root);
  return parts.join('');
}

export function renderXml(root: XmlElement): string {
  return render(root, ['<?xml version="1.0" encoding="UTF-8"?>\n']);
}

/** An element rendered once, to be placed in documents as it is (an emulated instance's item, cached). */
export function renderFragment(element: XmlElement): XmlRaw {
  return { raw: render(element, []) };
}

/** Timestamps in query-protocol XML are ISO 8601 with milliseconds, as EC2 and Auto Scaling send them. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
