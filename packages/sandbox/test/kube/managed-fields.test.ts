// metadata.managedFields as the API server keeps them for Update operations: who set each field.
import { describe, expect, it } from 'vitest';
import { managerOf, updateManagedFields, type ManagedFieldsEntry } from '../../src/kube/managed-fields.js';
import type { KubeObject } from '../../src/kube/types.js';

const node = (
  spec: Record<string, unknown>,
  annotations: Record<string, string> = {},
  managedFields?: unknown,
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n', annotations, ...(managedFields !== undefined ? { managedFields } : {}) },
  spec,
});
const write = (manager: string, subresource?: string) => ({
  manager,
  apiVersion: 'v1',
  at: '2026-11-29T12:00:00Z',
  ...(subresource !== undefined ? { subresource } : {}),
});
const writers = (entries: readonly ManagedFieldsEntry[], field: string): string[] =>
  entries.filter((e) => JSON.stringify(e.fieldsV1).includes(`"f:${field}"`)).map((e) => e.manager);

describe('managedFields', () => {
  it('should name the writer after fieldManager, else the User-Agent up to its first slash', () => {
    expect(managerOf('ec2-node-reconciler', 'kubectl/v1.31.9 (linux/amd64) kubernetes/8f38003')).toBe(
      'ec2-node-reconciler',
    );
    expect(managerOf(null, 'kubectl/v1.31.9 (linux/amd64) kubernetes/8f38003')).toBe('kubectl');
    expect(managerOf(undefined, undefined)).toBe('unknown');
  });

  it('should give a changed field to its writer and take it from the one before', () => {
    const ours = updateManagedFields(node({}), node({ unschedulable: true }, { 'x/by': 'us' }), write('us'));
    expect(writers(ours, 'unschedulable')).toEqual(['us']);
    const uncordoned = node({}, { 'x/by': 'us' }, ours);
    const afterUncordon = updateManagedFields(
      node({ unschedulable: true }, { 'x/by': 'us' }, ours),
      uncordoned,
      write('kubectl'),
    );
    expect(writers(afterUncordon, 'unschedulable')).toEqual([]);
    // Our annotation stays ours: the uncordon did not touch it.
    expect(writers(afterUncordon, 'x/by')).toEqual(['us']);
    const recordoned = updateManagedFields(
      node({}, { 'x/by': 'us' }, afterUncordon),
      node({ unschedulable: true }, { 'x/by': 'us' }),
      write('kubectl'),
    );
    expect(writers(recordoned, 'unschedulable')).toEqual(['kubectl']);
    expect(writers(recordoned, 'x/by')).toEqual(['us']);
  });

  it('should leave ownership as it is for a write that changes nothing, and keep the entry time', () => {
    const first = updateManagedFields(node({}), node({ unschedulable: true }), write('us'));
    const again = updateManagedFields(node({ unschedulable: true }, {}, first), node({ unschedulable: true }), {
      ...write('us'),
      at: '2026-11-29T13:00:00Z',
    });
    expect(again).toEqual(first);
  });

  it('should track status writes under the status subresource only', () => {
    const old = node(
      { unschedulable: true },
      {},
      updateManagedFields(node({}), node({ unschedulable: true }), write('us')),
    );
    const next = { ...old, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    const entries = updateManagedFields(old, next, write('kubelet', 'status'));
    expect(entries).toEqual([
      expect.objectContaining({ manager: 'us' }),
      expect.objectContaining({
        manager: 'kubelet',
        subresource: 'status',
        fieldsV1: { 'f:status': { 'f:conditions': {} } },
      }),
    ]);
  });
});
