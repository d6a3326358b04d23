// What `cdk deploy -c clusterName=<name>` would deploy for a scenario's cluster: the project's app,
// synthesized (bundled, cached per source hash on disk and per process here) for the scenario's
// cluster, region and account, and read as CloudFormation would create it.
import { resolve } from 'node:path';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { partitionOf } from '../aws/partitions.js';
import { synthesizeApp } from '../deployment/synth.js';
import { readDeployment, type Deployment, type FunctionSpec } from '../deployment/template.js';

export interface DeployTarget {
  readonly clusterName: string;
  readonly region: string;
  readonly accountId: string;
  /** The reconciler settings: only those that change the template's shape are synthesized; the rest reach the functions' environment. */
  readonly settings: Settings;
}

export interface DeployedStack {
  readonly stackName: string;
  readonly deployment: Deployment;
  /** The cloud assembly: where the functions' bundled assets are. */
  readonly assemblyDir: string;
}

const stacks = new Map<string, Promise<DeployedStack>>();

/**
 * Settings synthesized into the template's shape (a rule more or less). Every other setting is the
 * functions' RECONCILER_SETTINGS only, so a scenario's settings do not need a synth of their own.
 */
function shapingContext(settings: Settings): Record<string, unknown> {
  return settings.rebalance === 'ignore' ? { settings: JSON.stringify({ rebalance: 'ignore' }) } : {};
}

/** The stack for a cluster, synthesized once per process (and once per source change on disk). */
export function deploy(target: DeployTarget): Promise<DeployedStack> {
  const context = {
    clusterName: target.clusterName,
    region: target.region,
    account: target.accountId,
    ...shapingContext(target.settings),
  };
  const key = JSON.stringify(context);
  let stack = stacks.get(key);
  if (!stack) {
    stack = (async () => {
      const app = await synthesizeApp({ context });
      const entries = Object.entries(app.templates);
      const [stackName, template] = entries[0] ?? [];
      if (entries.length !== 1 || stackName === undefined)
        throw new Error(
          `deploying for ${target.clusterName}: expected one stack, the app synthesized ${entries.length}`,
        );
      return {
        stackName,
        deployment: readDeployment(template, {
          stackName,
          region: target.region,
          accountId: target.accountId,
          partition: partitionOf(target.region),
        }),
        assemblyDir: app.assemblyDir,
      };
    })();
    stacks.set(key, stack);
    // A failed synth is not cached: the next world tries again.
    stack.catch(() => stacks.delete(key));
  }
  return stack;
}

/** The directory of a function's bundled code. */
export function assetDirOf(stack: DeployedStack, fn: FunctionSpec): string {
  if (fn.assetPath === undefined)
    throw new Error(`${fn.logicalId}: the template names no bundled asset (was it synthesized without bundling?)`);
  // Relative to the cloud assembly, as synthesized; absolute when a test put another bundle in its place.
  return resolve(stack.assemblyDir, fn.assetPath);
}

/** The function the drain workflow invokes: the one whose ARN a state machine's definition names. */
export function drainStepFunction(deployment: Deployment): FunctionSpec | undefined {
  const definitions = JSON.stringify(deployment.stateMachines.map((machine) => machine.definition));
  return deployment.functions.find((fn) => definitions.includes(fn.arn));
}
