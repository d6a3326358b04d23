/**
 * IAM for the sandbox: identity-based policy evaluation (Allow/Deny, Action/NotAction,
 * Resource/NotResource with ARN wildcards, Condition operators with IfExists and set operators)
 * and each service's answer to a denied call. Standalone: the emulator's server decides where to call it.
 */
export { PolicyDocumentSchema, parsePolicy, type NamedPolicy, type PolicyDocument, type PolicyDocumentInput, type Statement } from './policy.js';
export { evaluate, checkPolicy, type AuthorizationRequest, type Decision, type StatementRef } from './evaluate.js';
export { CONDITION_OPERATORS, type ContextValue, type RequestContextKeys } from './conditions.js';
export { actionMatches, arnMatches } from './match.js';
export { IamAuthorizer, roleKey, type AuthorizedDecision } from './authorizer.js';
export { accessDeniedError, deniedSentence } from './denied.js';
export { requestTagKeys, resourceTagKeys } from './context.js';
