// The project's real stack, synthesized once per test file (bundling skipped) and read as the
// sandbox would deploy it.
import { synthesize } from '../../infra/support/synth.js';
import { readDeployment, type Deployment, type DeploymentEnv } from '../../../lib/sandbox/deployment/template.js';

export const ENV: DeploymentEnv = { stackName: 'Test', region: 'us-east-1', accountId: '123456789012' };

let cached: { template: unknown; deployment: Deployment } | undefined;

/** The default reconciler's template (cluster `demo`) and its deployment in ENV. */
export function deployedStack(): { template: unknown; deployment: Deployment } {
  if (!cached) {
    const template: unknown = synthesize().template.toJSON();
    cached = { template, deployment: readDeployment(template, ENV) };
  }
  return cached;
}

/** The one resource of a list whose logical id starts with `prefix`. */
export function byLogicalId<T extends { readonly logicalId: string }>(items: readonly T[], prefix: string): T {
  const found = items.filter((item) => item.logicalId.startsWith(prefix));
  const [first] = found;
  if (found.length !== 1 || !first) throw new Error(`expected one resource ${prefix}…, found ${found.map((f) => f.logicalId).join(', ') || 'none'}`);
  return first;
}
