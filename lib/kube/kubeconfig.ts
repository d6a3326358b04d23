// The operator's kubeconfig, for the CLI only: @kubernetes/client-node reads it (contexts, exec
// plugins, client certificates, proxies), and our KubeClient sends the requests. Kept out of the
// Lambda bundles, which never import this file.
import type { RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeConnection } from './client.js';

/** $KUBECONFIG or ~/.kube/config, optionally another context. */
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

/** The current context of a KubeConfig as a connection: client-node applies TLS and credentials to each request. */
export function connectionFromKubeConfig(kc: KubeConfig): KubeConnection {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('no current kubeconfig context; pass --kubeconfig or --context');
  return {
    server: cluster.server,
    async requestOptions() {
      const options: RequestOptions = {};
      await kc.applyToHTTPSOptions(options);
      return options;
    },
  };
}
