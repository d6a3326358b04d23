import { bindAwsQuery } from './protocol/aws-query.js';
import { bindEc2Query } from './protocol/ec2-query.js';
import { formParams } from './protocol/form.js';
import { bindAwsJson, bindRestJson } from './protocol/json.js';
import { autoScalingService } from './services/autoscaling.js';
import { cloudFormationService } from './services/cloudformation.js';
import { ec2Service } from './services/ec2.js';
import { eksService } from './services/eks.js';
import { eventBridgeService } from './services/eventbridge.js';
import { iamService } from './services/iam.js';
import { lambdaService } from './services/lambda.js';
import { logsService } from './services/logs.js';
import { isServiceName, type ServiceName } from './services/names.js';
import { schedulerService } from './services/scheduler.js';
import { stepFunctionsService } from './services/sfn.js';
import { sqsJsonService, sqsQueryService } from './services/sqs.js';
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
  cloudformation: cloudFormationService,
  iam: iamService,
  sqs: sqsJsonService,
  scheduler: schedulerService,
  logs: logsService,
};

/**
 * The service module that reads this request: SQS answers the JSON protocol (`X-Amz-Target:
 * AmazonSQS.…`, today's SDKs and CLIs) and, to older clients, the query protocol.
 */
function moduleFor(name: ServiceName, request: IncomingRequest): ServiceModule {
  if (name === 'sqs' && !String(request.headers['x-amz-target'] ?? '').startsWith(`${sqsJsonService.targetPrefix}.`))
    return sqsQueryService;
  return SERVICES[name];
}

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
  for (const service of [eventBridgeService, stepFunctionsService, sqsJsonService, logsService]) {
    if (target.startsWith(`${service.targetPrefix}.`)) return service.name;
  }
  if (request.path.startsWith('/clusters')) return 'eks';
  if (request.path.startsWith('/2015-03-31/')) return 'lambda';
  if (request.path.startsWith('/schedules/')) return 'scheduler';
  const action = formParams(request).get('Action') ?? '';
  for (const service of [
    ec2Service,
    autoScalingService,
    stsService,
    cloudFormationService,
    iamService,
    sqsQueryService,
  ]) {
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
 * ec2, autoscaling, eks, sts, events, states, lambda, cloudformation, iam, sqs, scheduler, logs),
 * exactly as the SDK and the CLI sign for it.
 */
export function route(request: IncomingRequest): Routed | undefined {
  const scope =
    scopeFromAuthorization(String(request.headers.authorization ?? '')) ??
    parseCredentialScope(request.query.get('X-Amz-Credential') ?? '');
  const name = scope && isServiceName(scope.service) ? scope.service : guessService(request);
  if (name === undefined) return undefined;
  return { call: bind(moduleFor(name, request), request), scope };
}
