/**
 * IAM for the sandbox: identity-based policy evaluation (Allow/Deny, Action/NotAction,
 * Resource/NotResource with ARN wildcards, Condition operators with IfExists and set operators)
 * each service's answer to a denied call, and what IAM is asked for each call the emulator serves
 * (requests.ts); the server (authorization.ts) puts them in front of every call when IAM is enforced.
 */
export {
  PolicyDocumentSchema,
  parsePolicy,
  type NamedPolicy,
  type PolicyDocument,
  type PolicyDocumentInput,
  type Statement,
} from './policy.js';
export { evaluate, checkPolicy, type AuthorizationRequest, type IamDecision, type StatementRef } from './evaluate.js';
export { CONDITION_OPERATORS, type ContextValue, type RequestContextKeys } from './conditions.js';
export { actionMatches, arnMatches } from './match.js';
export { IamAuthorizer, principalKey, roleKey, type AuthorizedDecision } from './authorizer.js';
export { accessDeniedError, deniedSentence } from './denied.js';
export { requestTagKeys, resourceTagKeys } from './context.js';
export { iamAction, operationNamed } from './actions.js';
export {
  autoScalingGroupArn,
  globalKeys,
  hasIamMapping,
  iamChecks,
  partitionOf,
  type IamCheck,
  type IamWorld,
} from './requests.js';
