// The sandbox's AWS account: the emulator, with every call authorized under the caller's role
// policies as the stack deploys them.
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import { startAwsEmulator, type AwsEmulator } from '../aws/index.js';
import { IamAuthorizer } from '../aws/iam/index.js';
import { DEFAULT_CREDENTIALS } from '../aws/sigv4.js';
import type { Deployment } from '../deployment/template.js';
import type { Scenario } from '../scenario/schema.js';
import type { RoleSessions } from './role-sessions.js';

export interface AwsWorld {
  readonly aws: AwsEmulator;
  readonly iam: IamAuthorizer;
}

export async function startAwsWorld(world: {
  readonly clock: VirtualClock;
  readonly scenario: Scenario;
  readonly deployment: Deployment;
  readonly sessions: RoleSessions;
  readonly operatorKeys: ReadonlySet<string>;
  readonly plannerKeys: ReadonlySet<string>;
}): Promise<AwsWorld> {
  const { clock, scenario, deployment, sessions, operatorKeys, plannerKeys } = world;
  const iam = new IamAuthorizer();
  for (const role of deployment.roles) iam.attach(role.arn, ...role.policies);
  const aws = await startAwsEmulator({
    clock,
    region: scenario.cluster.region,
    accountId: scenario.cluster.accountId,
    idSeed: scenario.name,
    credentials: [DEFAULT_CREDENTIALS, ...sessions.all()],
    iam,
    // EC2's token buckets, shared by every caller of the account as in AWS, on the virtual clock. All but
    // the operator are refused when a bucket is empty (the deployed functions' waits move that clock). The
    // operator (the reports' snapshots, drain and cordon steps, as the administrator or in its session of
    // the sweep role) waits in real time while the clock stands still: its requests count, never refused.
    // A replay's planner (role-sessions.ts PLANNER_SESSION) is not metered at all.
    rateLimits: {
      mayRefuse: (accessKeyId) => accessKeyId === undefined || !operatorKeys.has(accessKeyId),
      metered: (accessKeyId) => accessKeyId === undefined || !plannerKeys.has(accessKeyId),
    },
  });
  return { aws, iam };
}
