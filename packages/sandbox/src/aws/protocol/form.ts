import type { IncomingRequest } from '../services/types.js';

/**
 * The parameters of a query-protocol request: the form body of a POST (what the SDKs and the CLI
 * send) and, for GETs such as a presigned STS URL, the query string.
 */
export function formParams(request: IncomingRequest): URLSearchParams {
  const params = new URLSearchParams(request.query);
  if (request.body.length > 0) {
    for (const [key, value] of new URLSearchParams(request.body)) params.append(key, value);
  }
  return params;
}
