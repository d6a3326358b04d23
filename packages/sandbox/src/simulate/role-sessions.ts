// The role sessions the deployed stack's callers sign with: each function as its role, the services
// (Step Functions, the Scheduler) in theirs, and the operator's commands in a session of their own.
import { roleSessionCredential } from '../aws/index.js';
import { DEFAULT_CREDENTIALS, type EmulatorCredential } from '../aws/sigv4.js';
import type { Deployment } from '../deployment/template.js';

/** The session name AWS services give the roles they assume for a state machine or a schedule. */
export const SERVICE_SESSION = 'aws-service-session';
/** The session the operator's commands sign in, as the sweep function's role (operatorAws 'sweep-role'). */
export const OPERATOR_SESSION = 'sandbox-operator';

/**
 * The session a replay's sweep planner signs in, as the sweep function's role: what it reads to tell
 * whether a scheduled sweep would change anything takes no token from EC2's buckets (the sweep that
 * runs next meets them as it would have without the planner).
 */
export const PLANNER_SESSION = 'sandbox-replay-planner';

/** Role sessions by role and session name, each made once. */
export class RoleSessions {
  private readonly sessions = new Map<string, EmulatorCredential>();

  of(roleArn: string, name: string): EmulatorCredential {
    const key = `${roleArn}\0${name}`;
    let credential = this.sessions.get(key);
    if (!credential) this.sessions.set(key, (credential = roleSessionCredential(roleArn, name)));
    return credential;
  }

  all(): EmulatorCredential[] {
    return [...this.sessions.values()];
  }
}

/**
 * Every role session the stack's services use, made before the AWS emulator opens (it knows only
 * the credentials it is given), and the access keys the operator signs with.
 */
export function openSessions(deployment: Deployment): {
  readonly sessions: RoleSessions;
  readonly operatorKeys: ReadonlySet<string>;
  readonly plannerKeys: ReadonlySet<string>;
} {
  const sessions = new RoleSessions();
  for (const fn of deployment.functions) sessions.of(fn.roleArn, fn.name);
  // The operator signs as a function's role in a session of its own: its calls are the role's, its key is not the function's.
  const operatorKeys = new Set([
    DEFAULT_CREDENTIALS.accessKeyId,
    ...deployment.functions.map((fn) => sessions.of(fn.roleArn, OPERATOR_SESSION).accessKeyId),
  ]);
  const plannerKeys = new Set(deployment.functions.map((fn) => sessions.of(fn.roleArn, PLANNER_SESSION).accessKeyId));
  for (const machine of deployment.stateMachines) sessions.of(machine.roleArn, SERVICE_SESSION);
  for (const schedule of deployment.schedules) sessions.of(schedule.roleArn, SERVICE_SESSION);
  return { sessions, operatorKeys, plannerKeys };
}
