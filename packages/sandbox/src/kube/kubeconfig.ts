// Writes a kubeconfig pointing at the emulator, for kubectl and @kubernetes/client-node.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export type KubeconfigOptions = {
  /** Bearer token the client sends. @default 'emulator-admin-token' */
  readonly token?: string;
  /** Name of the user entry. @default 'emulator-user' */
  readonly user?: string;
  /** Name of the cluster and context. @default 'emulator' */
  readonly cluster?: string;
  /** Default namespace of the context. */
  readonly namespace?: string;
};

/** How clients trust the server: its own certificate (https) or nothing to verify (http). */
export type ServerTrust = { readonly caCert?: string };

export function kubeconfigYaml(server: string, options: KubeconfigOptions = {}, trust: ServerTrust = {}): string {
  const cluster = options.cluster ?? 'emulator';
  const user = options.user ?? 'emulator-user';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: cluster,
        cluster:
          trust.caCert === undefined
            ? // client-node refuses a plain http:// server unless TLS verification is explicitly skipped.
              { server, 'insecure-skip-tls-verify': true }
            : { server, 'certificate-authority-data': Buffer.from(trust.caCert).toString('base64') },
      },
    ],
    users: [{ name: user, user: { token: options.token ?? 'emulator-admin-token' } }],
    contexts: [
      {
        name: cluster,
        context: { cluster, user, ...(options.namespace === undefined ? {} : { namespace: options.namespace }) },
      },
    ],
    'current-context': cluster,
    preferences: {},
  });
}

export async function writeKubeconfig(
  path: string,
  server: string,
  options: KubeconfigOptions = {},
  trust: ServerTrust = {},
): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, kubeconfigYaml(server, options, trust), { mode: 0o600 });
  return path;
}
