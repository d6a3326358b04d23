import { describe, expect, it } from 'vitest';
import { isNoActiveLifecycleAction } from '../../lib/act/act.js';

const validationError = (message: string) => Object.assign(new Error(message), { name: 'ValidationError' });

describe('completing a lifecycle action', () => {
  it('should treat "no active lifecycle action" as moot (already completed or timed out)', () => {
    expect(
      isNoActiveLifecycleAction(
        validationError('No active Lifecycle Action found with instance ID i-0123456789abcdef0'),
      ),
    ).toBe(true);
    expect(
      isNoActiveLifecycleAction(
        validationError('No active Lifecycle Action found with token 6a1f0e2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b'),
      ),
    ).toBe(true);
  });

  it('should not hide other validation errors, such as a wrong hook name', () => {
    expect(isNoActiveLifecycleAction(validationError('LifecycleHook not found: drain-hook'))).toBe(false);
    expect(isNoActiveLifecycleAction(new Error('No active Lifecycle Action found'))).toBe(false);
  });
});
