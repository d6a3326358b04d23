import { AwsError } from '../errors.js';
import type { BoundCall, Ec2QueryService, HttpReply, IncomingRequest } from '../services/types.js';
import { formParams } from './form.js';
import { tryDecodeQueryParams } from './query-input.js';
import { el, elWithAttributes, renderXml } from './xml.js';

const XML_HEADERS = { 'content-type': 'text/xml;charset=UTF-8' };

/** `<Response><Errors><Error><Code>…` with `RequestID` (sic): the EC2 query protocol's error shape. */
export function ec2ErrorReply(error: AwsError, requestId: string): HttpReply {
  const body = renderXml(
    el(
      'Response',
      el('Errors', el('Error', el('Code', error.code), el('Message', error.message))),
      el('RequestID', requestId),
    ),
  );
  return { status: error.status, headers: XML_HEADERS, body };
}

export function bindEc2Query(service: Ec2QueryService, request: IncomingRequest): BoundCall {
  const form = formParams(request);
  const action = form.get('Action') ?? '';
  const { params, error: decodeError } = tryDecodeQueryParams(form, { collapseMember: false });
  return {
    service,
    operation: action,
    params,
    invoke(ctx) {
      if (decodeError) throw decodeError;
      const handler = Object.hasOwn(service.operations, action) ? service.operations[action] : undefined;
      if (!handler)
        throw new AwsError('InvalidAction', `The action ${action || '(none)'} is not valid for this web service.`);
      const children = handler(params, ctx);
      const body = renderXml(
        elWithAttributes(`${action}Response`, { xmlns: service.xmlns }, el('requestId', ctx.requestId), ...children),
      );
      return Promise.resolve({ status: 200, headers: XML_HEADERS, body });
    },
    renderError: ec2ErrorReply,
  };
}
