// Patch flavours and selectors, including properties that must hold for any input.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  deepEqual,
  PatchError,
} from '../../src/kube/patch.js';
import { fromLabelSelector, matches, parseFieldSelector, parseLabelSelector } from '../../src/kube/selectors.js';
import { StatusError } from '../../src/kube/index.js';

const json = fc.jsonValue();
const object = fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 5 });

describe('patches', () => {
  it('should never mutate the target (stored objects are shared)', () => {
    fc.assert(
      fc.property(object, object, (target, patch) => {
        const snapshot = structuredClone(target);
        applyMergePatch(target, patch);
        applyStrategicMergePatch(target, patch);
        return deepEqual(target, snapshot);
      }),
    );
  });

  it('should make a merge patch idempotent', () => {
    fc.assert(
      fc.property(object, object, (target, patch) => {
        const once = applyMergePatch(target, patch);
        return deepEqual(applyMergePatch(once, patch), once);
      }),
    );
  });

  it('should undo an add with a remove', () => {
    fc.assert(
      fc.property(object, fc.string({ minLength: 1, maxLength: 6 }), json, (target, key, value) => {
        fc.pre(!Object.hasOwn(target, key));
        const path = `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        const back = applyJsonPatch(applyJsonPatch(target, [{ op: 'add', path, value }]), [{ op: 'remove', path }]);
        return deepEqual(back, target);
      }),
    );
  });

  it('should treat __proto__ as an ordinary key (no prototype pollution)', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const merged = applyMergePatch({}, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.keys(merged)).toEqual(['__proto__']);
    const patched = applyJsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(patched)).toBe(Object.prototype);
  });

  it('should share untouched subtrees with the target', () => {
    const images = [{ names: ['a'], sizeBytes: 1 }];
    const node = { metadata: { labels: { a: '1' } }, status: { images } };
    const patched = applyStrategicMergePatch(node, { metadata: { labels: { b: '2' } } }) as typeof node;
    expect(patched.status.images).toBe(images);
    expect(patched.metadata.labels).toEqual({ a: '1', b: '2' });
  });

  it('should cordon and uncordon as kubectl patches', () => {
    const cordoned = applyStrategicMergePatch({ spec: { providerID: 'x' } }, { spec: { unschedulable: true } });
    expect(cordoned).toEqual({ spec: { providerID: 'x', unschedulable: true } });
    expect(applyStrategicMergePatch(cordoned, { spec: { unschedulable: null } })).toEqual({
      spec: { providerID: 'x' },
    });
  });

  it('should replace taints but merge conditions by type in a strategic merge', () => {
    const node = {
      spec: { taints: [{ key: 'a', effect: 'NoSchedule' }] },
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'DiskPressure', status: 'False' },
        ],
      },
    };
    const patched = applyStrategicMergePatch(node, {
      spec: { taints: [{ key: 'b', effect: 'NoExecute' }] },
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'DiskPressure', $patch: 'delete' },
        ],
      },
    });
    expect(patched).toEqual({
      spec: { taints: [{ key: 'b', effect: 'NoExecute' }] },
      status: { conditions: [{ type: 'Ready', status: 'False' }] },
    });
  });

  it('should support $deleteFromPrimitiveList and $retainKeys', () => {
    const patched = applyStrategicMergePatch(
      { metadata: { finalizers: ['a', 'b'] }, spec: { x: 1, y: 2 } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] }, spec: { $retainKeys: ['x'], x: 3 } },
    );
    expect(patched).toEqual({ metadata: { finalizers: ['b'] }, spec: { x: 3 } });
  });

  it('should name the path of a failed JSON patch operation', () => {
    const attempt = () => applyJsonPatch({ spec: {} }, [{ op: 'remove', path: '/spec/unschedulable' }]);
    expect(attempt).toThrow(PatchError);
    expect(attempt).toThrow('unable to remove nonexistent key: unschedulable');
  });

  it('should escape ~1 and ~0 in JSON pointers', () => {
    const patched = applyJsonPatch({ metadata: { labels: {} } }, [
      { op: 'add', path: '/metadata/labels/a~1b~0c', value: 'v' },
    ]);
    expect(patched).toEqual({ metadata: { labels: { 'a/b~c': 'v' } } });
  });
});

describe('selectors', () => {
  it.each([
    ['app=web', { app: 'web' }, true],
    ['app==web', { app: 'db' }, false],
    ['app!=web', {}, true],
    ['env in (a, b),tier notin (x)', { env: 'b', tier: 'y' }, true],
    ['env in (a,b)', { env: 'c' }, false],
    ['!legacy', { legacy: 'yes' }, false],
    ['ec2-node-reconciler/exclude', { 'ec2-node-reconciler/exclude': '' }, true],
    ['', { anything: 'x' }, true],
  ] as const)('should evaluate %j', (text, labels, expected) => {
    expect(matches(parseLabelSelector(text), labels)).toBe(expected);
  });

  it('should reject malformed label selectors with 400', () => {
    expect(() => parseLabelSelector('app=we b')).toThrow(StatusError);
    expect(() => parseLabelSelector('a,,b')).toThrow(StatusError);
  });

  it('should parse escaped field selectors', () => {
    expect(parseFieldSelector('spec.nodeName=ip-1,status.phase!=Failed,metadata.name=a\\,b')).toEqual([
      { field: 'spec.nodeName', value: 'ip-1', equal: true },
      { field: 'status.phase', value: 'Failed', equal: false },
      { field: 'metadata.name', value: 'a,b', equal: true },
    ]);
  });

  it('should treat a nil LabelSelector as nothing and {} as everything', () => {
    expect(fromLabelSelector(null)).toBe('nothing');
    expect(fromLabelSelector({})).toEqual({ requirements: [] });
    expect(fromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] })).toBe('nothing');
  });
});
