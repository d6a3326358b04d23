import { ApiException } from '@kubernetes/client-node';

/** The HTTP status of a failed Kubernetes call, or undefined when no answer came back. */
export function httpStatus(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

/** The Status message of a failed call (ApiException.body is the raw JSON string). */
export function statusMessage(error: unknown): string {
  if (error instanceof ApiException) {
    const body: unknown = typeof error.body === 'string' ? safeParse(error.body) : error.body;
    if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') return body.message;
    return `HTTP ${error.code}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
