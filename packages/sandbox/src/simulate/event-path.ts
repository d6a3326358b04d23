// The stack's event path, as deployed: its rules route events on the default bus to the signal queue,
// the queue's event source mapping feeds the events function, a schedule invokes the sweep function,
// and the drain workflow invokes the drain-step function.
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import type { AwsEmulator } from '../aws/index.js';
import { matchesPattern } from '../aws/event-pattern.js';
import { drainStepFunction } from '../deployed/deploy.js';
import type { LambdaService } from '../deployed/lambda-service.js';
import { QueuePoller } from '../deployed/queue-poller.js';
import { SignalQueue } from '../deployed/queue.js';
import type { Deployment, ScheduleSpec } from '../deployment/template.js';
import type { ServiceCalls } from './service-calls.js';

/** The deployed functions by what they do. */
export interface DeployedFunctions {
  /** Fed by the signal queue's event source mapping. */
  readonly events: string;
  /** Invoked by the schedule. */
  readonly sweep: string;
  /** Invoked by the drain workflow. */
  readonly drainStep: string;
}

export interface EventPath {
  /** The signal queue between the event rules and the events function. */
  readonly queue: SignalQueue;
  readonly poller: QueuePoller;
  readonly functions: DeployedFunctions;
  /** The schedule that invokes the sweep. */
  readonly schedule: ScheduleSpec;
}

/** The queue, its mapping's poller and the functions they and the schedule invoke; throws when the stack lacks one. */
export function wireEventPath(world: {
  readonly deployment: Deployment;
  readonly clock: VirtualClock;
  readonly region: string;
  readonly lambda: LambdaService;
  readonly calls: ServiceCalls;
  /** An injected fault on Lambda's Invoke API: it hits the services' calls too (the Scheduler's, the event source mapping's). */
  readonly invokeFault: () => string | undefined;
}): EventPath {
  const { deployment, clock, region, lambda, calls, invokeFault } = world;
  const mapping = deployment.eventSourceMappings[0];
  const queueSpec = deployment.queues.find((q) => q.arn === mapping?.eventSourceArn);
  const schedule = deployment.schedules.find((s) => lambda.host(s.targetArn) !== undefined);
  const drainStep = drainStepFunction(deployment);
  if (!mapping || !queueSpec || !schedule || !drainStep)
    throw new Error(
      'the synthesized stack lacks the signal queue, its event source mapping, the sweep schedule or the drain workflow',
    );
  const queue = new SignalQueue(
    queueSpec.arn,
    queueSpec.visibilityTimeoutSeconds * 1000,
    queueSpec.deadLetter?.maxReceiveCount,
  );
  // The mapping polls the queue as the function's role.
  const pollerRole = deployment.functions.find((fn) => fn.name === lambda.host(mapping.functionName)?.fn.name)?.roleArn;
  const mayPoll = calls.mayPoll(pollerRole, queue.arn, mapping.functionName);
  const poller = new QueuePoller({
    clock,
    queue,
    mapping: mayPoll ? mapping : { ...mapping, enabled: false },
    lambda,
    region,
    invokeFault,
  });
  const functions: DeployedFunctions = {
    events: lambda.host(mapping.functionName)?.fn.name ?? mapping.functionName,
    sweep: lambda.host(schedule.targetArn)?.fn.name ?? schedule.targetArn,
    drainStep: drainStep.name,
  };
  return { queue, poller, functions, schedule };
}

/**
 * Puts an event on the default bus, as AWS does: the rules as EventBridge holds them now (one an
 * operator disabled routes nothing) send it to the signal queue, one copy per rule. Returns the rules it matched.
 */
export const eventRouter =
  (aws: AwsEmulator, queue: SignalQueue, clock: VirtualClock) =>
  (event: unknown): readonly string[] => {
    const matched = aws.state.eventBus
      .rules('default')
      .filter(
        (rule) =>
          rule.state === 'ENABLED' &&
          rule.eventPattern !== undefined &&
          matchesPattern(JSON.parse(rule.eventPattern) as unknown, event),
      );
    const detailType =
      typeof event === 'object' && event !== null && 'detail-type' in event
        ? String(event['detail-type'])
        : '(unknown)';
    // One copy per target queue: two rules sending to the same queue deliver twice, as EventBridge does.
    for (const rule of matched)
      for (const target of rule.targets) if (target.arn === queue.arn) queue.send(event, detailType, clock.now());
    return matched.map((rule) => rule.name);
  };
