// `drains`: the drains running and lately ended — what the Nodes record and, with
// --drain-state-machine, what the deployed workflow says of each (its last step: pods left, blocking PDBs).
import { createAwsClients } from '../../lib/aws/clients.js';
import { DrainExecutions } from '../../lib/aws/drain-executions.js';
import { KubeClient } from '../../lib/kube/client.js';
import { NodeClient } from '../../lib/kube/nodes.js';
import { InvalidDurationError, parseDuration } from '@ec2-node-reconciler/model/duration.js';
import { ASK_THE_WORKFLOW, listDrains, type DrainListing } from '../observe/drain-list.js';
import { executionToAsk } from '../../lib/plan/drain-liveness.js';
import { drainClaimOf } from '../../lib/plan/own-cordon.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import type { CommandRun } from '../command-run.js';
import { CliError, EXIT } from '../exit-codes.js';
import { drainsJson, formatDrains } from '../format/drains.js';
import { connectKube } from '../live.js';
import { err, followClock, liveOptions, out, outputMode, str, tableStyle } from './shared.js';

/** Ended drains are listed when they started this long ago at most. */
export const DEFAULT_SINCE = '24h';

function sinceMs(v: Record<string, unknown>): number {
  try {
    return parseDuration(str(v['since']) ?? DEFAULT_SINCE);
  } catch (error) {
    if (error instanceof InvalidDurationError) throw new CliError(`--since: ${error.message}`);
    throw error;
  }
}

/**
 * The deployed drain workflow to ask, and the region to ask it in: the one its ARN names (a
 * --region that says otherwise is refused).
 */
function stateMachineOf(v: Record<string, unknown>): { readonly arn: string; readonly region: string } | undefined {
  const arn = str(v['drain-state-machine']);
  if (arn === undefined) return undefined;
  const region = /^arn:aws[a-z-]*:states:([a-z0-9-]+):\d{12}:stateMachine:./.exec(arn)?.[1];
  if (region === undefined) throw new CliError(`--drain-state-machine: not a state machine ARN: ${arn}`);
  const flag = str(v['region']);
  if (flag !== undefined && flag !== region)
    throw new CliError(
      `--region ${flag}, but --drain-state-machine is in ${region}: pass the state machine of this region, or leave --region out`,
    );
  return { arn, region };
}

export const runDrainsCommand: CommandRun = async (v) => {
  const mode = outputMode(v);
  const since = sinceMs(v);
  const stateMachine = stateMachineOf(v);
  // The Nodes need only the kubeconfig: no cluster name or region.
  const live = connectKube(liveOptions(v));
  await followClock(live);
  const nodes = await new NodeClient(new KubeClient(live.kube)).listNodes();
  const now = live.clock.now();
  let workflow: DrainListing['workflow'];
  const errors: string[] = [];
  if (stateMachine !== undefined) {
    const endpoint = str(v['endpoint-url']);
    const executions = new DrainExecutions(
      createAwsClients({ region: stateMachine.region, ...(endpoint !== undefined ? { endpoint } : {}) }).sfn,
      stateMachine.arn,
    );
    // Each record's drain as it runs now: its chained execution (none for a CLI's drain).
    const recorded = nodes.flatMap((node) => {
      const claim = drainClaimOf(node);
      const name = claim ? executionToAsk(claim) : undefined;
      return name !== undefined ? [name] : [];
    });
    let recent: string[] = [];
    try {
      recent = await executions.recent(now - since);
    } catch (error) {
      errors.push(errorText(error));
    }
    const answers = await executions.read([...recorded, ...recent]);
    for (const [name, answer] of answers)
      if (answer.kind === 'error') errors.push(`asking about drain ${name}: ${answer.error}`);
    workflow = { recent, answers };
  }
  const rows = listDrains({ nodes, now, ...(workflow ? { workflow } : {}) });
  out(mode === 'json' ? JSON.stringify(drainsJson(rows), null, 2) : formatDrains(rows, now, tableStyle(mode)));
  const unasked = rows.filter((row) => row.error === ASK_THE_WORKFLOW).length;
  if (unasked > 0)
    err(
      `note: ${unasked} drain(s) of the deployed workflow listed as unknown: pass --drain-state-machine <DrainStateMachineArn> to ask Step Functions about them`,
    );
  for (const error of errors) err(`error: ${error}`);
  return errors.length > 0 ? EXIT.error : EXIT.ok;
};
