// IAM in front of every routed call: who calls (the identity of the signing access key), what IAM
// is asked (iam/requests.ts), and the service's own answer when it says no. AWS authorizes before
// the service does anything, so the server calls this before faults and handlers.
import { AwsError } from './errors.js';
import type { IamAuthorizer } from './iam/authorizer.js';
import { accessDeniedError } from './iam/denied.js';
import { globalKeys, iamChecks } from './iam/requests.js';
import type { BoundCall, ServiceModule } from './services/types.js';
import { identityOf, type CredentialScope, type EmulatorCredential } from './sigv4.js';
import type { AwsState } from './state/index.js';

export interface CallAuthorization {
  /** The caller's ARN, when the request was signed. */
  readonly principal?: string;
  /** The answer to a refused call (AccessDenied in the service's shape, or a missing signature). */
  readonly refusal?: AwsError;
}

/** Whether the service implements the operation: an unknown one is refused by the service (InvalidAction), not by IAM. */
export function implementsOperation(service: ServiceModule, operation: string): boolean {
  switch (service.protocol) {
    case 'rest-json':
      return service.routes.some((r) => r.operation === operation);
    case 'ec2':
    case 'query':
    case 'json':
      return Object.hasOwn(service.operations, operation);
  }
}

export interface AuthorizeWhere {
  readonly state: AwsState;
  readonly scope?: CredentialScope;
  readonly credentials: readonly EmulatorCredential[];
}

/**
 * Authorizes one call under the caller's identity-based policies. Every check of the call must be
 * allowed; the first refused one is the answer, worded as the service words AccessDenied.
 */
export function authorizeCall(iam: IamAuthorizer, call: BoundCall, where: AuthorizeWhere): CallAuthorization {
  const service = call.service.name;
  if (!implementsOperation(call.service, call.operation)) return {};
  const { state, scope } = where;
  // Without a signature there is nobody to authorize: AWS refuses the call before IAM.
  if (!scope)
    return { refusal: new AwsError('MissingAuthenticationToken', 'Request is missing Authentication Token', 403) };
  const identity = identityOf(scope.accessKeyId, where.credentials, state.accountId);
  const global = globalKeys({ identity, region: scope.region, now: state.now() });
  for (const check of iamChecks(service, call.operation, call.params, state)) {
    const request = {
      principal: identity.arn,
      action: check.action,
      resources: check.resources,
      context: { ...global, ...check.context },
    };
    const decision = iam.authorize(request);
    if (!decision.allowed)
      return { principal: identity.arn, refusal: accessDeniedError(service, call.operation, request, decision) };
  }
  return { principal: identity.arn };
}
