import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textWithoutArrays } from '../../lib/kube/skim.js';

/** What the skim must give: the same value with every array-valued `images` member emptied. */
function emptied(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(emptied);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === 'images' && Array.isArray(v) ? [] : emptied(v)]),
    );
  }
  return value;
}

const skim = (text: string): unknown => JSON.parse(textWithoutArrays(Buffer.from(text), ['images'])) as unknown;

describe('textWithoutArrays', () => {
  it('should empty a Node’s images and nothing else, compact or indented', () => {
    const node = {
      metadata: { name: 'n', annotations: { note: 'say "images":[1,2] here', images: 'a string' } },
      status: {
        conditions: [{ type: 'Ready' }],
        images: [{ names: ['r/a:1', 'x\\"]}'], sizeBytes: 12 }],
        nodeInfo: { images: [] },
      },
    };
    expect(skim(JSON.stringify(node))).toEqual(emptied(node));
    expect(skim(JSON.stringify(node, null, 2))).toEqual(emptied(node));
    expect((emptied(node) as { status: { images: unknown[] } }).status.images).toEqual([]);
  });

  it('should leave anything it cannot follow to the parser, whole', () => {
    const broken = '{"status":{"images":[{"names":["a"]}';
    expect(textWithoutArrays(Buffer.from(broken), ['images'])).toBe(broken);
  });

  it('should give the parser what it would have read, images emptied, for any JSON', () => {
    const tree = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 2 }),
        tie('object'),
        fc.array(tie('value'), { maxLength: 3 }),
      ),
      object: fc.dictionary(
        fc.oneof(fc.constant('images'), fc.string({ maxLength: 8 }), fc.constant('"images":[')),
        tie('value'),
        { maxKeys: 4 },
      ),
    })).object;
    fc.assert(
      fc.property(tree, fc.boolean(), (generated, indent) => {
        // What the parser reads back (-0 is written 0): the oracle starts from there, not from the generated value.
        const value: unknown = JSON.parse(JSON.stringify(generated));
        expect(skim(JSON.stringify(value, null, indent ? 1 : 0))).toEqual(emptied(value));
      }),
      { numRuns: 500 },
    );
  });
});
