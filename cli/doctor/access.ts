// Who the API server takes the function roles for: the cluster's authentication mode, each role's
// EKS access entry (STANDARD, in the reconciler's group) or, where the mode keeps the ConfigMap,
// its aws-auth mapping. What a role is taken for is the identity the RBAC checks impersonate.
import { parse } from 'yaml';
import * as z from 'zod';
import { RECONCILER_GROUP } from '@ec2-node-reconciler/model/contract/rbac.js';
import { couldNotRead, failed, passed, type Check, type Read } from './check.js';

export type AuthenticationMode = 'API' | 'API_AND_CONFIG_MAP' | 'CONFIG_MAP';

export const usesAccessEntries = (mode: string): boolean => mode === 'API' || mode === 'API_AND_CONFIG_MAP';
export const usesConfigMap = (mode: string): boolean => mode === 'CONFIG_MAP' || mode === 'API_AND_CONFIG_MAP';

export function checkAuthenticationMode(cluster: string, mode: string): Check {
  if (usesAccessEntries(mode)) return passed('authentication mode', cluster, `${mode}: access entries apply`);
  if (mode === 'CONFIG_MAP')
    return passed(
      'authentication mode',
      cluster,
      'CONFIG_MAP: only aws-auth maps roles (the stack’s access entries need API_AND_CONFIG_MAP or API)',
    );
  return failed(
    'authentication mode',
    cluster,
    `${mode || '(none)'}: not a mode this check knows`,
    `aws eks describe-cluster --name ${cluster} --query cluster.accessConfig`,
  );
}

/** A function role, named as the stack's outputs name it. */
export interface FunctionRole {
  /** `events`, `sweep`, `drain-step`. */
  readonly label: string;
  readonly arn: string;
  /** The function whose role it is: Lambda names the role's sessions after it. */
  readonly functionName: string;
}

export interface AccessEntryFacts {
  readonly type: string;
  readonly kubernetesGroups: readonly string[];
  /** As EKS gives it, `{{SessionName}}` templated. */
  readonly username: string;
}

/** A role's line in aws-auth's mapRoles. */
export interface AwsAuthRole {
  readonly rolearn: string;
  readonly username?: string;
  readonly groups: readonly string[];
}

/** Who the API server takes the role's sessions for: the identity RBAC is checked as. */
export interface KubeIdentity {
  readonly user: string;
  readonly groups: readonly string[];
  /** Where the identity comes from: `access entry` or `aws-auth`. */
  readonly source: string;
}

export interface AccessCheck {
  readonly check: Check;
  readonly identity?: KubeIdentity;
}

const ROLE_ARN = /^arn:(aws[\w-]*):iam::(\d{12}):role\/(?:[^/]+\/)*([^/]+)$/;

/** aws-auth names a role without its path (EKS matches on account and name): the same role either way? */
export function sameRole(a: string, b: string): boolean {
  const x = ROLE_ARN.exec(a);
  const y = ROLE_ARN.exec(b);
  return x !== null && y !== null && x[2] === y[2] && x[3] === y[3];
}

const MapRolesSchema = z.array(
  z.object({ rolearn: z.string(), username: z.string().optional(), groups: z.array(z.string()).default([]) }).loose(),
);

/** The roles aws-auth maps (its `mapRoles` YAML); an entry that does not parse is refused, naming it. */
export function parseAwsAuth(data: Readonly<Record<string, string>>): AwsAuthRole[] {
  const text = data['mapRoles'];
  if (text === undefined || text.trim() === '') return [];
  const parsed = MapRolesSchema.safeParse(parse(text));
  if (!parsed.success)
    throw new Error(
      `aws-auth mapRoles: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** The username a template names, for one session (`{{SessionName}}`, and aws-auth's `{{SessionNameRaw}}`). */
const usernameFor = (template: string, session: string): string =>
  template.replaceAll('{{SessionNameRaw}}', session).replaceAll('{{SessionName}}', session);

const createEntry = (cluster: string, role: FunctionRole): string =>
  `aws eks create-access-entry --cluster-name ${cluster} --principal-arn ${role.arn} --type STANDARD --kubernetes-groups ${RECONCILER_GROUP}`;

const awsAuthFix = (role: FunctionRole): string =>
  `add to aws-auth's mapRoles (kubectl -n kube-system edit configmap aws-auth): - rolearn: ${role.arn.replace(/:role\/.*\/([^/]+)$/, ':role/$1')} / groups: [${RECONCILER_GROUP}]`;

/**
 * A role has access when its entry (or, in a mode with the ConfigMap, its aws-auth line) puts it in
 * the reconciler's group. An entry of another type, or without the group, is refused: the RBAC
 * manifest binds the group, nothing else.
 */
export function checkAccess(input: {
  readonly cluster: string;
  readonly mode: string;
  readonly role: FunctionRole;
  /** Undefined: the cluster's mode has no access entries. A read whose value is undefined: no entry. */
  readonly entry?: Read<AccessEntryFacts | undefined>;
  /** Undefined: not read (the mode has no ConfigMap, or the entry sufficed). */
  readonly awsAuth?: Read<readonly AwsAuthRole[] | undefined>;
}): AccessCheck {
  const { cluster, mode, role } = input;
  const subject = `${role.label} role`;
  const session = role.functionName;
  if (input.entry?.ok === false && input.awsAuth === undefined)
    return {
      check: couldNotRead('access entry', subject, input.entry.error, `eks:DescribeAccessEntry on cluster ${cluster}`),
    };
  const entry = input.entry?.ok === true ? input.entry.value : undefined;
  if (entry !== undefined) {
    if (entry.type !== 'STANDARD')
      return {
        check: failed(
          'access entry',
          subject,
          `type ${entry.type}: only a STANDARD entry maps a role to Kubernetes groups`,
          `aws eks delete-access-entry --cluster-name ${cluster} --principal-arn ${role.arn} && ${createEntry(cluster, role)}`,
        ),
      };
    if (!entry.kubernetesGroups.includes(RECONCILER_GROUP))
      return {
        check: failed(
          'access entry',
          subject,
          `groups [${entry.kubernetesGroups.join(', ')}]: not in ${RECONCILER_GROUP}, the group the RBAC manifest binds`,
          `aws eks update-access-entry --cluster-name ${cluster} --principal-arn ${role.arn} --kubernetes-groups ${RECONCILER_GROUP}`,
        ),
      };
    return {
      check: passed('access entry', subject, `STANDARD, group ${RECONCILER_GROUP}`),
      identity: { user: usernameFor(entry.username, session), groups: entry.kubernetesGroups, source: 'access entry' },
    };
  }
  const mapped =
    input.awsAuth?.ok === true ? input.awsAuth.value?.find((r) => sameRole(r.rolearn, role.arn)) : undefined;
  if (mapped !== undefined) {
    if (!mapped.groups.includes(RECONCILER_GROUP))
      return {
        check: failed(
          'access entry',
          subject,
          `aws-auth maps it to groups [${mapped.groups.join(', ')}], not ${RECONCILER_GROUP}`,
          awsAuthFix(role),
        ),
      };
    return {
      check: passed('access entry', subject, `aws-auth, group ${RECONCILER_GROUP}`),
      identity: {
        user: usernameFor(mapped.username ?? role.arn, session),
        groups: mapped.groups,
        source: 'aws-auth',
      },
    };
  }
  if (input.awsAuth?.ok === false && !usesAccessEntries(mode))
    return {
      check: couldNotRead('access entry', subject, input.awsAuth.error, 'get on configmap kube-system/aws-auth'),
    };
  const where = usesAccessEntries(mode)
    ? usesConfigMap(mode)
      ? 'no access entry, and no aws-auth mapping'
      : 'no access entry'
    : 'not in aws-auth (the cluster’s mode is CONFIG_MAP)';
  return {
    check: failed(
      'access entry',
      subject,
      `${role.arn}: ${where}: its calls are refused (401)`,
      usesAccessEntries(mode) ? createEntry(cluster, role) : awsAuthFix(role),
    ),
  };
}
