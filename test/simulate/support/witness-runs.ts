// Running a least-privilege witness in the deployed world: with every permission (it must pass, its
// premise's refusals aside) and with one permission taken out (it must fail, and say why).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { iamAction } from '@ec2-node-reconciler/sandbox/aws/iam/index.js';
import { isServiceName } from '@ec2-node-reconciler/sandbox/aws/services/names.js';
import type { Deployment } from '@ec2-node-reconciler/sandbox/deployment/template.js';
import { loadScenario, parseScenario, type LoadedScenario } from '@ec2-node-reconciler/sandbox/scenario/load.js';
import { describeDenial } from '@ec2-node-reconciler/sandbox/simulate/denials.js';
import { simulate } from '@ec2-node-reconciler/sandbox/simulate/run.js';
import { cliOperator } from '../../../cli/simulation-operator.js';
import type { Witness } from './permission-witnesses.js';
import { kindOfPrincipal, permissionKey, withoutIamAction, withoutRbacRule, type Permission } from './permissions.js';

const SCENARIOS = fileURLToPath(new URL('../../scenarios/', import.meta.url));

export interface WitnessRun {
  /** Expectations of the scenario that did not hold. */
  readonly failures: readonly string[];
  /** Refused calls the witness's premise does not explain. */
  readonly denied: readonly string[];
  /** A refused call is the removed permission's: its action by its role, or its verb on its resource. */
  readonly refusedTheRemoved: boolean;
  readonly ms: number;
}

export const witnessName = (witness: Witness): string =>
  typeof witness.scenario === 'string' ? witness.scenario : witness.scenario.name;

async function load(witness: Witness): Promise<LoadedScenario> {
  if (typeof witness.scenario === 'string') return loadScenario(join(SCENARIOS, witness.scenario));
  const file = `${witness.scenario.name}.yaml`;
  return { scenario: parseScenario(witness.scenario.yaml, file), baseDir: SCENARIOS, file };
}

/** `autoscaling:CompleteLifecycleAction` from a denial's `service:Operation` (Lambda's Invoke is lambda:InvokeFunction). */
function actionOf(call: string): string {
  const [service = '', operation = ''] = call.split(':');
  return isServiceName(service) ? iamAction(service, operation) : call;
}

const apiGroupOf = (path: string): string => (path.startsWith('/apis/') ? (path.split('/')[2] ?? '') : '');

/** Runs the witness; without `removed`, with every permission the stack has. */
export async function runWitness(witness: Witness, removed?: Permission): Promise<WitnessRun> {
  const started = performance.now();
  const loaded = await load(witness);
  const alterDeployment = (deployment: Deployment): Deployment => {
    const premised = witness.premise ? witness.premise(deployment) : deployment;
    return removed?.kind === 'iam' ? withoutIamAction(removed.role, removed.action)(premised) : premised;
  };
  const { simulation, sandbox } = await simulate(loaded, {
    operator: cliOperator,
    keepOpen: true,
    // The operator's snapshots and steps sign as the administrator: only the stack's own calls meet the removal.
    sandbox: {
      alterDeployment,
      operatorAws: 'administrator',
      ...(removed?.kind === 'rbac' ? { alterRbac: withoutRbacRule(removed) } : {}),
    },
  });
  try {
    const { deployment } = sandbox.stack;
    const unexplained = simulation.denied.filter((d) => !witness.expectedDenial?.(d, deployment));
    const refusedTheRemoved =
      removed?.kind === 'iam'
        ? unexplained.some(
            (d) =>
              d.api === 'aws' &&
              actionOf(d.call) === removed.action &&
              kindOfPrincipal(deployment, d.by) === removed.role,
          )
        : removed?.kind === 'rbac'
          ? sandbox.kube.requestLog.entries.some(
              (e) =>
                e.status === 403 &&
                permissionKey({
                  kind: 'rbac',
                  apiGroup: apiGroupOf(e.path),
                  resource: e.subresource ? `${e.resource}/${e.subresource}` : e.resource,
                  verb: e.verb,
                  ...(removed.namespace !== undefined ? { namespace: e.namespace } : {}),
                }) === permissionKey(removed),
            )
          : false;
    return {
      failures: simulation.expectations?.failures ?? [],
      denied: unexplained.map(describeDenial),
      refusedTheRemoved,
      ms: Math.round(performance.now() - started),
    };
  } finally {
    await sandbox.close();
  }
}
