// The functions themselves: deployed, Active, with the role the stack gave them.
import { couldNotRead, failed, passed, unknown, type Check, type Read } from './check.js';

export interface FunctionFacts {
  readonly state: string;
  readonly stateReason?: string;
  readonly lastUpdateStatus?: string;
  readonly role: string;
  /** Subnets and security groups when it runs in a VPC. */
  readonly vpc?: {
    readonly subnetIds: readonly string[];
    readonly securityGroupIds: readonly string[];
    readonly vpcId?: string;
  };
  readonly logGroup: string;
  readonly environment: Readonly<Record<string, string>>;
}

export function checkFunction(input: {
  readonly label: string;
  readonly name: string;
  readonly roleArn: string;
  readonly facts: Read<FunctionFacts | undefined>;
  readonly deployCommand: string;
}): Check {
  const { label, name, facts } = input;
  const subject = `${label} function`;
  if (!facts.ok) return couldNotRead('function', subject, facts.error, `lambda:GetFunctionConfiguration on ${name}`);
  if (facts.value === undefined)
    return failed('function', subject, `${name}: no such function`, `redeploy the stack: ${input.deployCommand}`);
  const { state, stateReason, lastUpdateStatus, role } = facts.value;
  const why = stateReason === undefined ? '' : ` (${stateReason})`;
  if (state === 'Pending' || lastUpdateStatus === 'InProgress')
    return unknown(
      'function',
      subject,
      `${name}: ${state}, update ${lastUpdateStatus ?? 'unknown'}${why}`,
      'run doctor again in a minute',
    );
  if (state !== 'Active' || (lastUpdateStatus !== undefined && lastUpdateStatus !== 'Successful'))
    return failed(
      'function',
      subject,
      `${name}: ${state}, last update ${lastUpdateStatus ?? 'unknown'}${why}`,
      `aws lambda get-function-configuration --function-name ${name} --query '[State,StateReason,LastUpdateStatusReason]'`,
    );
  if (role !== input.roleArn)
    return failed(
      'function',
      subject,
      `${name} runs as ${role}, not the stack's ${input.roleArn}`,
      `redeploy the stack: ${input.deployCommand}`,
    );
  return passed('function', subject, `${name}: Active`);
}
