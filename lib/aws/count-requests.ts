import type { HandlerExecutionContext, InitializeHandler, InitializeHandlerArguments, MetadataBearer, MiddlewareStack } from '@smithy/types';
import type { ApiCallCounter } from '../pipeline/api-calls.js';
import type { AwsClients } from './clients.js';

function countOn<I extends object, O extends MetadataBearer>(stack: MiddlewareStack<I, O>, service: string, counter: ApiCallCounter): void {
  stack.add(
    (next: InitializeHandler<I, O>, context: HandlerExecutionContext) => async (args: InitializeHandlerArguments<I>) => {
      counter.add(`${service} ${(context.commandName ?? 'unknown').replace(/Command$/, '')}`);
      return next(args);
    },
    { step: 'initialize', name: 'countApiCalls' },
  );
}

/** Counts each SDK command (once per command, whatever its retries) as `<service> <Operation>`. */
export function countAwsRequests(clients: AwsClients, counter: ApiCallCounter): AwsClients {
  countOn(clients.ec2.middlewareStack, 'ec2', counter);
  countOn(clients.autoScaling.middlewareStack, 'autoscaling', counter);
  countOn(clients.eks.middlewareStack, 'eks', counter);
  countOn(clients.eventBridge.middlewareStack, 'events', counter);
  countOn(clients.sfn.middlewareStack, 'sfn', counter);
  return clients;
}
