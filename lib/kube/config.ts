import { KubeConfig } from '@kubernetes/client-node';

export interface ClusterCredentials {
  readonly server: string;
  /** Base64 PEM of the cluster CA (EKS DescribeCluster's certificateAuthority.data). */
  readonly caData?: string;
  readonly token: string;
}

/**
 * A KubeConfig for one cluster and one bearer token. Built per invocation because the EKS token
 * rotates every 14 minutes; building it costs nothing. A plain-HTTP server (the sandbox) is
 * allowed only through skipTLSVerify, which client-node requires for http:// URLs.
 */
export function kubeConfigFor(credentials: ClusterCredentials): KubeConfig {
  const kc = new KubeConfig();
  const insecure = credentials.server.startsWith('http://');
  kc.loadFromOptions({
    clusters: [{ name: 'cluster', server: credentials.server, skipTLSVerify: insecure, ...(credentials.caData ? { caData: credentials.caData } : {}) }],
    users: [{ name: 'reconciler', token: credentials.token }],
    contexts: [{ name: 'reconciler', cluster: 'cluster', user: 'reconciler' }],
    currentContext: 'reconciler',
  });
  return kc;
}

/** The operator's kubeconfig (CLI): $KUBECONFIG or ~/.kube/config, optionally another context. */
export function kubeConfigFromFile(options: { path?: string; context?: string } = {}): KubeConfig {
  const kc = new KubeConfig();
  if (options.path) kc.loadFromFile(options.path);
  else kc.loadFromDefault();
  if (options.context) kc.setCurrentContext(options.context);
  if (!kc.getCurrentContext() || !kc.getCurrentCluster()) {
    throw new Error('no current kubeconfig context; pass --kubeconfig or --context');
  }
  return kc;
}
