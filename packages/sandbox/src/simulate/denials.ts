// Calls the deployment's own permissions refused: AWS calls IAM denied under the deployed role
// policies, and Kubernetes calls the shipped RBAC forbade. A refusal is a defect of the stack unless
// a scenario says it expects it (`expect.denied`).
import type { AwsEmulator } from '../aws/index.js';
import type { KubeEmulator } from '../kube/index.js';
import { PLANNER_SESSION } from './role-sessions.js';

export interface Denial {
  readonly at: number;
  /** `aws` for an IAM refusal, `kube` for an RBAC one. */
  readonly api: 'aws' | 'kube';
  /** `ec2:DescribeInstances`, `PATCH /api/v1/nodes/n1`. */
  readonly call: string;
  /** The caller: a role session ARN, a Kubernetes user. */
  readonly by: string;
}

export function denialsOf(world: {
  readonly aws: Pick<AwsEmulator, 'requestLog'>;
  readonly kube: Pick<KubeEmulator, 'requestLog'>;
  readonly serviceDenials: readonly Denial[];
}): Denial[] {
  const aws = world.aws.requestLog.filter({ denied: true }).map((e): Denial => ({
    at: e.at,
    api: 'aws',
    call: `${e.service}:${e.operation}`,
    by: e.principal ?? e.accessKeyId ?? '(unsigned)',
  }));
  // 401: the caller's role has no access entry (or its token is bad); 403: RBAC refused it. A 401 or
  // 403 the scenario injected as a fault is the fault's.
  const kube = world.kube.requestLog.entries
    .filter((e) => (e.status === 401 || e.status === 403) && e.injected !== true)
    .map((e): Denial => ({ at: e.at, api: 'kube', call: `${e.method} ${e.path}`, by: e.user }));
  // A replay's planner is not the stack: what it was refused, the sweep that runs meets itself.
  return [...aws, ...world.serviceDenials, ...kube].filter((d) => !isPlanner(d.by)).sort((a, b) => a.at - b.at);
}

/** The planner's role session, as IAM names it (…:assumed-role/ROLE/SESSION) and as the API server's user. */
const isPlanner = (by: string): boolean => by.endsWith(`/${PLANNER_SESSION}`);

export const describeDenial = (d: Denial): string => `${d.call} by ${d.by}`;
