import { AwsError } from '../errors.js';
import {
  FlattenedList,
  RenderedMember,
  type AwsQueryService,
  type BoundCall,
  type HttpReply,
  type IncomingRequest,
  type QueryResultValue,
} from '../services/types.js';
import { formParams } from './form.js';
import { tryDecodeQueryParams } from './query-input.js';
import { el, elWithAttributes, isoTime, renderFragment, renderXml, type XmlElement, type XmlRaw } from './xml.js';

const XML_HEADERS = { 'content-type': 'text/xml' };
const JSON_HEADERS = { 'content-type': 'application/json' };

function toXml(name: string, value: QueryResultValue): XmlElement | XmlRaw | undefined {
  if (value === undefined) return undefined;
  if (value instanceof Date) return el(name, isoTime(value.getTime()));
  // Rendered already, as the list member it is.
  if (value instanceof RenderedMember) return value.xml;
  if (value instanceof FlattenedList)
    return {
      raw: value.items
        .map((item) => {
          const element = toXml(name, item);
          return element === undefined ? '' : 'raw' in element ? element.raw : renderFragment(element).raw;
        })
        .join(''),
    };
  if (Array.isArray(value))
    return el(
      name,
      value.map((item: QueryResultValue) => toXml('member', item)),
    );
  if (typeof value === 'object')
    return el(
      name,
      Object.entries(value as Record<string, QueryResultValue>).map(([k, v]) => toXml(k, v)),
    );
  return el(name, String(value));
}

/** A list member rendered once, to be reused while `value` does not change. */
export function renderMember(value: QueryResultValue): RenderedMember {
  const element = toXml('member', value);
  return new RenderedMember(
    value,
    element === undefined ? { raw: '' } : 'raw' in element ? element : renderFragment(element),
  );
}

function toJson(value: QueryResultValue): unknown {
  if (value instanceof RenderedMember) return toJson(value.value);
  if (value instanceof FlattenedList) return value.items.map((item) => toJson(item));
  if (value instanceof Date) return value.getTime() / 1000;
  if (Array.isArray(value)) return value.map((item: QueryResultValue) => toJson(item));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, QueryResultValue>).map(([k, v]) => [k, toJson(v)]),
    );
  }
  return value;
}

/**
 * STS (like every awsquery service behind the same front end) answers in JSON when asked with
 * `Accept: application/json`, which is how aws-iam-authenticator reads GetCallerIdentity.
 */
const wantsJson = (request: IncomingRequest): boolean => (request.headers.accept ?? '').includes('application/json');

export function bindAwsQuery(service: AwsQueryService, request: IncomingRequest): BoundCall {
  const form = formParams(request);
  const action = form.get('Action') ?? '';
  const version = form.get('Version') ?? '';
  const json = wantsJson(request);
  const { params, error: decodeError } = tryDecodeQueryParams(form, { collapseMember: true });
  const renderError = (error: AwsError, requestId: string): HttpReply => {
    if (json) {
      const body = JSON.stringify({
        Error: { Code: error.code, Message: error.message, Type: error.fault },
        RequestId: requestId,
      });
      return { status: error.status, headers: JSON_HEADERS, body };
    }
    const body = renderXml(
      elWithAttributes(
        'ErrorResponse',
        { xmlns: service.xmlns },
        el('Error', el('Type', error.fault), el('Code', error.code), el('Message', error.message)),
        el('RequestId', requestId),
      ),
    );
    return { status: error.status, headers: XML_HEADERS, body };
  };
  return {
    service,
    operation: action,
    params,
    async invoke(ctx) {
      if (decodeError) throw decodeError;
      const handler = Object.hasOwn(service.operations, action) ? service.operations[action] : undefined;
      if (!handler)
        throw new AwsError(
          'InvalidAction',
          `Could not find operation ${action || '(none)'} for version ${version || '(none)'}`,
        );
      const result = await handler(params, ctx);
      if (json) {
        const payload: Record<string, unknown> = { ResponseMetadata: { RequestId: ctx.requestId } };
        if (result !== null) payload[`${action}Result`] = toJson(result);
        return { status: 200, headers: JSON_HEADERS, body: JSON.stringify({ [`${action}Response`]: payload }) };
      }
      const body = renderXml(
        elWithAttributes(
          `${action}Response`,
          { xmlns: service.xmlns },
          result === null ? undefined : toXml(`${action}Result`, result),
          el('ResponseMetadata', el('RequestId', ctx.requestId)),
        ),
      );
      return { status: 200, headers: XML_HEADERS, body };
    },
    renderError,
  };
}
