import { bindAwsQuery } from './protocol/aws-query.js';
import { bindEc2Query } from './protocol/ec2-query.js';
import { formParams } from './protocol/form.js';
import { bindAwsJson, bindRestJson } from './protocol/json.js';
import { autoScalingService } from './services/autoscaling.js';
import { ec2Service } from './services/ec2.js';
import { eksService } from './services/eks.js';
import { eventBridgeService } from './services/eventbridge.js';
import { lambdaService } from './services/lambda.js';
import { isServiceName, type ServiceName } from './services/names.js';
import { stepFunctionsService } from './services/sfn.js';
import { stsService } from './services/sts.js';
import type { BoundCall, IncomingRequest, ServiceModule } from './services/types.js';
import { parseCredentialScope, scopeFromAuthorization, type CredentialScope } from './sigv4.js';

export const SERVICES: Readonly<Record<ServiceName, ServiceModule>> = {
  ec2: ec2Service,
  autoscaling: autoScalingService,
  eks: eksService,
  sts: stsService,
  events: eventBridgeService,
  states: stepFunctionsService,
  lambda: lambdaService,
};

export interface Routed {
  readonly call: BoundCall;
  readonly scope?: CredentialScope;
}

/**
 * When a request carries no usable signature (hand-made curl, an unsigned presigned URL), the
 * wire still tells the service apart: the JSON target prefix, the REST path, or the query Action.
 */
function guessService(request: IncomingRequest): ServiceName | undefined {
  const target = String(request.headers['x-amz-target'] ?? '');
  for (const service of [eventBridgeService, stepFunctionsService]) {
    if (target.startsWith(`${service.targetPrefix}.`)) return service.name;
  }
  if (request.path.startsWith('/clusters')) return 'eks';
  if (request.path.startsWith('/2015-03-31/functions/')) return 'lambda';
  const action = formParams(request).get('Action') ?? '';
  for (const service of [ec2Service, autoScalingService, stsService]) {
    if (Object.hasOwn(service.operations, action)) return service.name;
  }
  return undefined;
}

function bind(service: ServiceModule, request: IncomingRequest): BoundCall {
  switch (service.protocol) {
    case 'ec2':
      return bindEc2Query(service, request);
    case 'query':
      return bindAwsQuery(service, request);
    case 'json':
      return bindAwsJson(service, request);
    case 'rest-json':
      return bindRestJson(service, request);
  }
}

/**
 * One endpoint for every service: the SigV4 credential scope names the service (signing names
 * ec2, autoscaling, eks, sts, events, states, lambda), exactly as the SDK and the CLI sign for it.
 */
export function route(request: IncomingRequest): Routed | undefined {
  const scope =
    scopeFromAuthorization(String(request.headers.authorization ?? '')) ??
    parseCredentialScope(request.query.get('X-Amz-Credential') ?? '');
  const name = scope && isServiceName(scope.service) ? scope.service : guessService(request);
  if (name === undefined) return undefined;
  return { call: bind(SERVICES[name], request), scope };
}
