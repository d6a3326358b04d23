import type { KubeConnection } from './client.js';

export interface ClusterCredentials {
  readonly server: string;
  /** Base64 PEM of the cluster CA (EKS DescribeCluster's certificateAuthority.data). */
  readonly caData?: string;
  readonly token: string;
}

/**
 * One cluster and one bearer token: what a Lambda invocation talks to. Built per invocation because
 * the EKS token rotates; the CA becomes the only trusted root for the API server (node:https pools
 * keep-alive sockets per CA, so warm invocations reuse them). A plain `http://` server is the sandbox.
 */
export function bearerConnection(credentials: ClusterCredentials, onUnauthorized?: () => void): KubeConnection {
  const ca = credentials.caData ? Buffer.from(credentials.caData, 'base64') : undefined;
  const options = { ...(ca ? { ca } : {}), headers: { Authorization: `Bearer ${credentials.token}` } };
  return {
    server: credentials.server,
    requestOptions: () => Promise.resolve(options),
    ...(onUnauthorized ? { unauthorized: onUnauthorized } : {}),
  };
}
