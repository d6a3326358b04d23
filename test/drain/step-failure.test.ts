// How a drain step's failure is classified (docs/design.md §5): the one HTTP-status error type,
// KubeApiError, read anywhere in the cause chain.
import { describe, expect, it } from 'vitest';
import {
  asStepFailure,
  DrainStepPermanentError,
  PERMANENT_STEP_ERROR,
  stepFailureKind,
} from '../../lib/drain/step-failure.js';
import { KubeApiError, KubeTransportError } from '../../lib/kube/client.js';

const refused = (status: number): KubeApiError =>
  new KubeApiError(status, { message: `refused with ${status}` }, { method: 'GET', path: '/api/v1/pods' });
const named = (cause: unknown): Error => new Error('listing pods on node node-a', { cause });

describe('stepFailureKind', () => {
  it.each([400, 403, 405, 415, 422])('should call a request refused with %i permanent, wrapped or not', (status) => {
    expect(stepFailureKind(refused(status))).toBe('permanent');
    expect(stepFailureKind(named(named(refused(status))))).toBe('permanent');
  });

  it.each([401, 404, 408, 409, 429, 500, 502, 503, 504])('should call a request answered %i transient', (status) => {
    expect(stepFailureKind(named(refused(status)))).toBe('transient');
  });

  it('should call a failure without an answer, or an unknown error, transient', () => {
    expect(stepFailureKind(named(new KubeTransportError('connection reset', { transient: true })))).toBe('transient');
    expect(stepFailureKind(new Error('boom'))).toBe('transient');
    expect(stepFailureKind('not an error')).toBe('transient');
  });

  it('should keep a failure already marked permanent permanent', () => {
    expect(stepFailureKind(named(new DrainStepPermanentError('refused')))).toBe('permanent');
  });
});

describe('asStepFailure', () => {
  it('should fail a permanent failure under the name the workflow catches, its cause kept', () => {
    const error = named(refused(403));

    const failure = asStepFailure(error);

    expect(failure).toBeInstanceOf(DrainStepPermanentError);
    expect(failure).toMatchObject({ name: PERMANENT_STEP_ERROR, message: error.message, cause: error });
  });

  it('should fail a transient failure as it is', () => {
    const error = named(refused(503));

    expect(asStepFailure(error)).toBe(error);
  });
});
