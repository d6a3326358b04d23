// Calls AWS services make for the stack as its roles (Lambda writing logs, Step Functions and the
// Scheduler invoking functions, the event source mapping polling), authorized as the deployed
// policies allow, and the refusals, kept to show what the stack lacks.
import type { Clock } from '@ec2-node-reconciler/model/clock.js';
import type { IamAuthorizer } from '../aws/iam/index.js';
import type { FunctionSpec } from '../deployment/template.js';
import type { Denial } from './denials.js';
import { SERVICE_SESSION, type RoleSessions } from './role-sessions.js';

/**
 * What Lambda's event source mapping does with the queue, as the function's role: the permissions
 * the Lambda and SQS guides require of the execution role ("sqs:DeleteMessage, sqs:GetQueueAttributes,
 * sqs:ReceiveMessage"; AWSLambdaSQSQueueExecutionRole holds the same three).
 */
const MAPPING_ACTIONS = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];

export class ServiceCalls {
  /** The calls the deployed policies refused, in the order they were refused. */
  readonly denials: Denial[] = [];
  private readonly refusedOnce = new Set<string>();
  private readonly streamsCreated = new Set<string>();

  constructor(
    private readonly iam: IamAuthorizer,
    private readonly clock: Clock,
    private readonly sessions: RoleSessions,
    private readonly account: { readonly partition: string; readonly region: string; readonly accountId: string },
  ) {}

  /** Whether the principal may; a refusal is recorded once per caller and action. */
  may(principal: string, action: string, resource: string): boolean {
    if (this.iam.authorize({ principal, action, resources: [resource] }).allowed) return true;
    const key = `${principal}\0${action}`;
    if (!this.refusedOnce.has(key))
      this.denials.push({ at: this.clock.now(), api: 'aws', call: action, by: principal });
    this.refusedOnce.add(key);
    return false;
  }

  /**
   * Lambda writes each function's log lines to its log group as the function's role: a stream per
   * function and day here (one per execution environment in Lambda), then its events. Refused, they are lost.
   */
  readonly mayDeliverLogs = (fn: FunctionSpec, stream: string): boolean => {
    const { partition, region, accountId } = this.account;
    const principal = this.sessions.of(fn.roleArn, fn.name).arn ?? fn.roleArn;
    const arn = `arn:${partition}:logs:${region}:${accountId}:log-group:${fn.logGroupName}:log-stream:${stream}`;
    if (!this.streamsCreated.has(arn) && this.may(principal, 'logs:CreateLogStream', arn)) this.streamsCreated.add(arn);
    return this.streamsCreated.has(arn) && this.may(principal, 'logs:PutLogEvents', arn);
  };

  /** Services invoke functions as their roles (Step Functions for the workflow, the Scheduler for the sweep): the refusal's message, or undefined. */
  readonly mayInvoke = (roleArn: string, functionArn: string): string | undefined => {
    const principal = this.sessions.of(roleArn, SERVICE_SESSION).arn ?? roleArn;
    if (this.iam.authorize({ principal, action: 'lambda:InvokeFunction', resources: [functionArn] }).allowed)
      return undefined;
    this.denials.push({ at: this.clock.now(), api: 'aws', call: 'lambda:InvokeFunction', by: principal });
    return `User: ${principal} is not authorized to perform: lambda:InvokeFunction on resource: ${functionArn} because no identity-based policy allows the lambda:InvokeFunction action`;
  };

  /**
   * Whether the event source mapping may poll the queue as the function's role (`pollerRole`; unknown:
   * it may not). Without the SQS permissions it never receives (CloudFormation would refuse to create it).
   */
  mayPoll(pollerRole: string | undefined, queueArn: string, mappedFunction: string): boolean {
    const refused =
      pollerRole === undefined
        ? ['sqs:ReceiveMessage']
        : MAPPING_ACTIONS.filter(
            (action) => !this.iam.authorize({ principal: pollerRole, action, resources: [queueArn] }).allowed,
          );
    for (const action of refused)
      this.denials.push({ at: this.clock.now(), api: 'aws', call: action, by: pollerRole ?? mappedFunction });
    return refused.length === 0;
  }
}
