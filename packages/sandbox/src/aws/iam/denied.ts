// The answer each service gives a call IAM denied, as an AwsError that the protocol layer renders in
// the service's own error shape (EC2 `<Response><Errors>`, awsquery `<ErrorResponse>`, JSON `__type`,
// restJson `x-amzn-ErrorType`).
//
// Codes and statuses (service API references and observed answers):
//   EC2                       UnauthorizedOperation   403  "You are not authorized to perform this operation. User: … "
//   Auto Scaling, STS (query) AccessDenied            403
//   EventBridge, Step Functions (awsJson) AccessDeniedException 400 (their Common Errors)
//   EKS, Lambda (restJson)    AccessDeniedException   403
//   CloudFormation, IAM, SQS  AccessDenied            403
//   CloudWatch Logs           AccessDeniedException   400
//   Scheduler (restJson)      AccessDeniedException   403
// The sentence is IAM's: "User: <principal> is not authorized to perform: <action>[ on resource:
// <arn>] because no identity-based policy allows the <action> action" (implicit deny) or
// "… with an explicit deny in an identity-based policy".
import { createHash } from 'node:crypto';
import { AwsError } from '../errors.js';
import type { ServiceName } from '../services/names.js';
import type { AuthorizationRequest, IamDecision } from './evaluate.js';

type Denied = Extract<IamDecision, { allowed: false }>;

/** IAM's sentence for a denied request. */
export function deniedSentence(request: AuthorizationRequest, decision: Denied): string {
  const onResource = decision.resource === '*' ? '' : ` on resource: ${decision.resource}`;
  const why =
    decision.kind === 'explicit-deny'
      ? 'with an explicit deny in an identity-based policy'
      : `because no identity-based policy allows the ${request.action} action`;
  return `User: ${request.principal} is not authorized to perform: ${request.action}${onResource} ${why}`;
}

/**
 * EC2 encodes the details of a denied mutating call (sts:DecodeAuthorizationMessage reads it);
 * Describe calls carry none. The blob here is opaque too: a stable digest of the decision.
 */
function encodedFailure(request: AuthorizationRequest, decision: Denied): string {
  return createHash('sha256').update(JSON.stringify({ request, decision })).digest('base64url');
}

const READ_ONLY = /^(Describe|Get|List)/;

/** The error a call denied by IAM gets from `service`. */
export function accessDeniedError(
  service: ServiceName,
  operation: string,
  request: AuthorizationRequest,
  decision: Denied,
): AwsError {
  const sentence = deniedSentence(request, decision);
  switch (service) {
    case 'ec2': {
      const encoded = READ_ONLY.test(operation)
        ? ''
        : `. Encoded authorization failure message: ${encodedFailure(request, decision)}`;
      return new AwsError(
        'UnauthorizedOperation',
        `You are not authorized to perform this operation. ${sentence}${encoded}`,
        403,
      );
    }
    case 'autoscaling':
    case 'sts':
    case 'cloudformation':
    case 'iam':
    case 'sqs':
      return new AwsError('AccessDenied', sentence, 403);
    case 'events':
    case 'states':
    case 'logs':
      return new AwsError('AccessDeniedException', sentence, 400);
    case 'eks':
    case 'lambda':
    case 'scheduler':
      return new AwsError('AccessDeniedException', sentence, 403);
    default: {
      const unknown: never = service;
      throw new Error(`no access-denied answer for service ${String(unknown)}`);
    }
  }
}
