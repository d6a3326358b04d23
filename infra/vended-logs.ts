// Log groups an AWS service delivers to (Step Functions' execution logs) are named under
// /aws/vendedlogs/: CloudWatch Logs then lets the service deliver without adding the group to the
// account's logs resource policy, whose 5,120 characters (and ten policies per region) run out in
// accounts with many deliveries, failing the group's creation.
import { Aws, Fn, Names } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/** The prefix CloudWatch Logs exempts from the resource policy for vended deliveries. */
export const VENDED_LOGS_PREFIX = '/aws/vendedlogs/';

/**
 * `/aws/vendedlogs/<service>/<stack and construct path>-<stack id>`. The stack id (its GUID) makes the
 * name new with each creation of the stack: a group retained by a deleted stack (the default
 * removal policy) never blocks deploying it again.
 */
export function vendedLogGroupName(scope: Construct, service: string): string {
  const stackGuid = Fn.select(2, Fn.split('/', Aws.STACK_ID));
  return `${VENDED_LOGS_PREFIX}${service}/${Names.uniqueResourceName(scope, { maxLength: 256, separator: '-' })}-${stackGuid}`;
}
