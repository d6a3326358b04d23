import type {
  HandlerExecutionContext,
  InitializeHandler,
  InitializeHandlerArguments,
  MetadataBearer,
  MiddlewareStack,
} from '@smithy/types';
import type { ApiCallCounter } from '../support/api-calls.js';
import { once, type AwsClients } from './clients.js';

const MIDDLEWARE_NAME = 'countApiCalls';

type CountableStack = Pick<MiddlewareStack<object, MetadataBearer>, 'add'>;

function stackOf(command: unknown): CountableStack | undefined {
  if (typeof command !== 'object' || command === null || !('middlewareStack' in command)) return undefined;
  const stack: unknown = command.middlewareStack;
  return typeof stack === 'object' && stack !== null && 'add' in stack && typeof stack.add === 'function'
    ? (stack as CountableStack)
    : undefined;
}

/**
 * A per-run view of a shared client: same configuration and connections, but every command sent
 * through it carries a middleware that counts it into this run's counter. The clients live as long
 * as the warm container and are shared by concurrent runs (an SQS batch is processed in parallel),
 * so the counting goes on each command, never on the client's own stack.
 */
function countingView<C extends { send(...args: never[]): unknown }>(
  client: C,
  service: string,
  counter: ApiCallCounter,
): C {
  const send = (command: unknown, ...rest: unknown[]): unknown => {
    stackOf(command)?.add(
      (next: InitializeHandler<object, MetadataBearer>, context: HandlerExecutionContext) =>
        async (args: InitializeHandlerArguments<object>) => {
          counter.add(`${service} ${(context.commandName ?? 'unknown').replace(/Command$/, '')}`);
          return next(args);
        },
      { step: 'initialize', name: MIDDLEWARE_NAME, override: true },
    );
    return (client.send as (command: unknown, ...rest: unknown[]) => unknown).call(client, command, ...rest);
  };
  // A Proxy keeps `instanceof EC2Client` true, which the SDK's paginators check.
  return new Proxy(client, {
    get: (target, property) => (property === 'send' ? send : Reflect.get(target, property, target)),
  });
}

/**
 * Counts each SDK command (once per command, whatever its retries) as `<service> <Operation>`.
 * Returns views of the clients for one run, made when the run first asks for each client; the
 * clients themselves are left untouched.
 */
export function countAwsRequests(clients: AwsClients, counter: ApiCallCounter): AwsClients {
  return {
    ec2: once(async () => countingView(await clients.ec2(), 'ec2', counter)),
    autoScaling: once(async () => countingView(await clients.autoScaling(), 'autoscaling', counter)),
    eks: once(async () => countingView(await clients.eks(), 'eks', counter)),
    eventBridge: once(async () => countingView(await clients.eventBridge(), 'events', counter)),
    sfn: once(async () => countingView(await clients.sfn(), 'sfn', counter)),
  };
}
