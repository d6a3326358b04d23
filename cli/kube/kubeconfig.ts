// The operator's kubeconfig, for the CLI only: @kubernetes/client-node reads it (contexts, exec
// plugins, client certificates, proxies), and our KubeClient sends the requests. Kept out of the
// Lambda bundles, which never import this file.
import { existsSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeConnection } from '../../lib/kube/client.js';

/**
 * $KUBECONFIG or ~/.kube/config, optionally another context. What is missing is said plainly: with
 * no file at all client-node would make up a `http://localhost:8080` cluster and fail later with a
 * TLS message that names none of it.
 */
export function kubeConfigFromFile(options: { path?: string; context?: string } = {}): KubeConfig {
  const kc = new KubeConfig();
  if (options.path) {
    if (!existsSync(options.path)) throw new Error(`kubeconfig ${options.path}: no such file`);
    kc.loadFromFile(options.path);
  } else {
    const fromEnv = (process.env['KUBECONFIG'] ?? '').split(delimiter).filter((p) => p !== '');
    const standard = join(homedir(), '.kube', 'config');
    const files = fromEnv.length > 0 ? fromEnv : [standard];
    if (!files.some((file) => existsSync(file))) {
      throw new Error(
        `no kubeconfig: ${fromEnv.length > 0 ? `none of $KUBECONFIG (${fromEnv.join(delimiter)}) exists` : `$KUBECONFIG is not set and ${standard} does not exist`}; pass --kubeconfig PATH (for EKS: aws eks update-kubeconfig --name CLUSTER)`,
      );
    }
    kc.loadFromDefault();
  }
  if (options.context) {
    // client-node answers null (typed) or undefined (at run time) for an unknown name.
    if (!kc.getContextObject(options.context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new Error(
        `no context ${JSON.stringify(options.context)} in the kubeconfig${known.length > 0 ? ` (it has: ${known.join(', ')})` : ' (it has none)'}`,
      );
    }
    kc.setCurrentContext(options.context);
  }
  if (!kc.getCurrentContext() || !kc.getCurrentCluster()) {
    throw new Error(
      'the kubeconfig has no current context (or its cluster is missing); pass --context NAME or set one with kubectl config use-context',
    );
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
