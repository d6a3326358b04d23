// What `doctor` asks the API server: whether an identity may do something (SelfSubjectAccessReview,
// sent impersonating it, as `kubectl auth can-i --as --as-group` does), and the aws-auth ConfigMap.
import * as z from 'zod';
import { readFailed, readOk, type Read } from '../doctor/check.js';
import type { AccessReview, KubePermission } from '../doctor/rbac.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import type { KubeClient } from '../../lib/kube/client.js';
import { KubeApiError, type KubeConnection } from '../../lib/kube/client.js';

/** The connection, every request of which acts as `user` in `groups` (Impersonate-User, Impersonate-Group). */
export function impersonating(
  connection: KubeConnection,
  identity: { readonly user: string; readonly groups: readonly string[] },
): KubeConnection {
  return {
    server: connection.server,
    requestOptions: async () => {
      const base = await connection.requestOptions();
      const headers = Array.isArray(base.headers) ? {} : (base.headers ?? {});
      return {
        ...base,
        headers: { ...headers, 'Impersonate-User': identity.user, 'Impersonate-Group': [...identity.groups] },
      };
    },
    ...(connection.unauthorized ? { unauthorized: () => connection.unauthorized?.() } : {}),
  };
}

const ReviewSchema = z.object({
  status: z.object({ allowed: z.boolean(), denied: z.boolean().optional(), reason: z.string().optional() }).loose(),
});

/** One SelfSubjectAccessReview, made as whoever the client's connection is. */
export async function reviewAccess(client: KubeClient, permission: KubePermission): Promise<Read<AccessReview>> {
  try {
    const answer = await client.call(
      {
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: {
            resourceAttributes: {
              verb: permission.verb,
              group: permission.group,
              resource: permission.resource,
              ...(permission.subresource !== undefined ? { subresource: permission.subresource } : {}),
              ...(permission.namespace !== undefined ? { namespace: permission.namespace } : {}),
            },
          },
        },
      },
      ReviewSchema,
    );
    return readOk({
      allowed: answer.status.allowed,
      ...(answer.status.reason !== undefined ? { reason: answer.status.reason } : {}),
    });
  } catch (error) {
    return readFailed(errorText(error));
  }
}

const ConfigMapSchema = z.object({ data: z.record(z.string(), z.string()).default({}) }).loose();

/** kube-system/aws-auth's data; undefined when the cluster has none. */
export async function readAwsAuth(client: KubeClient): Promise<Read<Readonly<Record<string, string>> | undefined>> {
  try {
    const map = await client.call(
      { method: 'GET', path: '/api/v1/namespaces/kube-system/configmaps/aws-auth' },
      ConfigMapSchema,
    );
    return readOk(map.data);
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 404) return readOk(undefined);
    return readFailed(errorText(error));
  }
}
