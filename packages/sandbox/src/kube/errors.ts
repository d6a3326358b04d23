// Failures as the API server reports them: a meta/v1 Status with the reason and code that
// client-go's apierrors.IsNotFound / IsConflict / IsTooManyRequests look at.

export type StatusCause = { reason?: string; message?: string; field?: string };

export type StatusDetails = {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
};

export type StatusBody = {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
};

/** A resource as errors name it: `nodes`, `poddisruptionbudgets.policy`. */
export type GroupResource = { group: string; resource: string };

const qualified = (gr: GroupResource): string => (gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`);
const details = (gr: GroupResource, name: string): StatusDetails => ({
  ...(name === '' ? {} : { name }),
  ...(gr.group === '' ? {} : { group: gr.group }),
  kind: gr.resource,
});

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string | undefined,
    message: string,
    readonly details?: StatusDetails,
    /** Seconds a client should wait; also sent as the Retry-After header. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'StatusError';
  }

  toStatus(): StatusBody {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      ...(this.reason === undefined ? {} : { reason: this.reason }),
      ...(this.details === undefined ? {} : { details: this.details }),
      code: this.code,
    };
  }
}

export const successStatus = (code: number, detail?: StatusDetails): StatusBody => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  ...(detail === undefined ? {} : { details: detail }),
  code,
});

export const notFound = (gr: GroupResource, name: string): StatusError =>
  new StatusError(404, 'NotFound', `${qualified(gr)} "${name}" not found`, details(gr, name));

export const alreadyExists = (gr: GroupResource, name: string): StatusError =>
  new StatusError(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, details(gr, name));

export const conflict = (gr: GroupResource, name: string, why: string): StatusError =>
  new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`,
    details(gr, name),
  );

export const MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

/** 422 naming every offending field, as `Node "x" is invalid: spec.providerID: Forbidden: …`. */
export function invalid(
  kind: string,
  group: string,
  name: string,
  causes: { field: string; type: string; detail: string }[],
): StatusError {
  const text = causes.map((c) => `${c.field}: ${c.type}: ${c.detail}`);
  const message = `${kind} "${name}" is invalid: ${text.length === 1 ? (text[0] ?? '') : `[${text.join(', ')}]`}`;
  return new StatusError(422, 'Invalid', message, {
    name,
    ...(group === '' ? {} : { group }),
    kind,
    causes: causes.map((c) => ({
      reason: `Field${c.type.replace(/ /g, '')}`,
      message: `${c.type}: ${c.detail}`,
      field: c.field,
    })),
  });
}

export const badRequest = (message: string): StatusError => new StatusError(400, 'BadRequest', message);

export const forbidden = (message: string, gr: GroupResource, name: string): StatusError =>
  new StatusError(403, 'Forbidden', message, details(gr, name));

export const unauthorized = (): StatusError => new StatusError(401, 'Unauthorized', 'Unauthorized');

export const methodNotSupported = (gr: GroupResource, action: string): StatusError =>
  new StatusError(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${qualified(gr)}"`, {
    ...(gr.group === '' ? {} : { group: gr.group }),
    kind: gr.resource,
  });

export const unsupportedMediaType = (contentType: string): StatusError =>
  new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got ${contentType})`,
  );

export const internalError = (message: string): StatusError =>
  new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });

export const tooManyRequests = (message: string, retryAfterSeconds: number, causes?: StatusCause[]): StatusError =>
  new StatusError(
    429,
    'TooManyRequests',
    message,
    { ...(causes === undefined ? {} : { causes }), ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}) },
    retryAfterSeconds > 0 ? retryAfterSeconds : undefined,
  );

export const pathNotFound = (): StatusError =>
  new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
