// `explain NODE`: the Node's story as the cluster and the account show it now — a dry-run sweep's
// classification of it (condition and why, the actions it would plan, those it would skip and why), the
// drain its record names (cause: the signal's event id; pods left, blocking PDBs when the workflow is
// asked), and the reconciler's Kubernetes Events on it (what earlier runs did). Reads only.
import * as z from 'zod';
import { createAwsClients } from '../../lib/aws/clients.js';
import { DrainExecutions } from '../../lib/aws/drain-executions.js';
import { executionToAsk } from '../../lib/plan/drain-liveness.js';
import {
  drainLeftText,
  entriesOfReport,
  inTimeOrder,
  instanceOf,
  type NodeExplanation,
  type TimelineEntry,
} from '../explain/timeline.js';
import { kubePath, KubeClient } from '../../lib/kube/client.js';
import { EVENT_COMPONENT, EVENT_NAMESPACE } from '../../lib/kube/events.js';
import { LIST_PAGE } from '../../lib/kube/list.js';
import { NodeClient } from '../../lib/kube/nodes.js';
import { epochOf } from '../../lib/kube/node-view.js';
import { listOf, ObjectMetaSchema } from '../../lib/kube/schemas.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import { listDrains, type DrainListing, type DrainRow } from '../observe/drain-list.js';
import { runSweep } from '../../lib/pipeline/run.js';
import { drainClaimOf } from '../../lib/plan/own-cordon.js';
import { errorText } from '@ec2-node-reconciler/model/error-text.js';
import type { CommandRun } from '../command-run.js';
import { CliError, EXIT } from '../exit-codes.js';
import { explanationJson, formatExplanation } from '../format/explain.js';
import { connect } from '../live.js';
import { settingsFromFlags } from '../settings-flags.js';
import { err, followClock, liveOptions, nodeNotFound, out, outputMode, str, tableStyle } from './shared.js';

const EventSchema = z.object({
  metadata: ObjectMetaSchema.default({}),
  reason: z.string().nullish(),
  message: z.string().nullish(),
  type: z.string().nullish(),
  count: z.number().nullish(),
  firstTimestamp: z.string().nullish(),
  lastTimestamp: z.string().nullish(),
  eventTime: z.string().nullish(),
  source: z.object({ component: z.string().nullish() }).nullish(),
  reportingComponent: z.string().nullish(),
});

/** The reconciler's Events on the Node (the kubelet's and others' are `kubectl describe node`'s to show). */
async function nodeEvents(kube: KubeClient, node: string): Promise<TimelineEntry[]> {
  const entries: TimelineEntry[] = [];
  const selector = `involvedObject.kind=Node,involvedObject.name=${node}`;
  let token: string | undefined;
  do {
    const query = { fieldSelector: selector, limit: LIST_PAGE, continue: token };
    const page = await kube.call(
      { method: 'GET', path: kubePath('api/v1/namespaces', EVENT_NAMESPACE, 'events'), query },
      listOf(EventSchema),
    );
    for (const event of page.items) {
      const component = event.source?.component ?? event.reportingComponent;
      if (component !== EVENT_COMPONENT) continue;
      const at =
        epochOf(event.lastTimestamp) ?? epochOf(event.eventTime) ?? epochOf(event.metadata.creationTimestamp) ?? 0;
      const first = epochOf(event.firstTimestamp);
      const count = event.count ?? 1;
      const since = first !== undefined ? ` since ${new Date(first).toISOString()}` : '';
      entries.push({
        at,
        kind: 'event',
        source: event.reason ?? 'Event',
        text: `${event.type ?? 'Normal'}: ${event.message ?? ''}${count > 1 ? ` (x${count}${since})` : ''}`,
      });
    }
    token = page.metadata.continue || undefined;
  } while (token);
  return entries;
}

function drainEntries(row: DrainRow, now: number): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const cause = row.cause !== undefined ? ` for signal ${row.cause}` : '';
  const lifecycle = row.lifecycle ? `; lifecycle action ${row.lifecycle.group}/${row.lifecycle.hook}` : '';
  const deadline = row.deadline !== undefined ? `; deadline ${new Date(row.deadline).toISOString()}` : '';
  entries.push({
    at: row.startedAt ?? now,
    kind: 'drain',
    source: row.runs === 'local' ? 'local' : 'workflow',
    text: `drain ${row.execution}${cause} started${row.reason ? `: ${row.reason}` : ''}${lifecycle}${deadline}`,
  });
  const pdbs = (row.blockingPdbs ?? []).map((b) => `${b.pdb} (${b.pods})`);
  const left = drainLeftText(row.podsLeft, row.leftByReason, pdbs);
  entries.push({
    at: row.stoppedAt ?? row.lastStepAt ?? now,
    kind: 'drain',
    source: row.runs === 'local' ? 'local' : 'workflow',
    text: `drain ${row.status}${row.outcome !== undefined ? `: ${row.outcome}` : ''}${left}${row.error !== undefined ? `; ${row.error}` : ''}`,
  });
  return entries;
}

/** The drain the Node records, with what the deployed workflow says of it when --drain-state-machine names it. */
async function recordedDrain(
  node: NodeView,
  now: number,
  stateMachine: { readonly arn: string; readonly region: string; readonly endpoint?: string } | undefined,
): Promise<{ rows: DrainRow[]; error?: string }> {
  let workflow: DrainListing['workflow'];
  const claim = drainClaimOf(node);
  const name = claim ? executionToAsk(claim) : undefined;
  let error: string | undefined;
  if (stateMachine !== undefined && name !== undefined) {
    const executions = new DrainExecutions(
      createAwsClients({
        region: stateMachine.region,
        ...(stateMachine.endpoint ? { endpoint: stateMachine.endpoint } : {}),
      }).sfn,
      stateMachine.arn,
    );
    try {
      workflow = { recent: [], answers: await executions.read([name]) };
    } catch (e) {
      error = `asking Step Functions about drain ${name}: ${errorText(e)}`;
    }
  }
  return { rows: listDrains({ nodes: [node], now, ...(workflow ? { workflow } : {}) }), ...(error ? { error } : {}) };
}

export const runExplainCommand: CommandRun = async (v, [node]) => {
  if (!node) throw new CliError('explain: which node? (explain NODE)');
  const mode = outputMode(v);
  const settings = settingsFromFlags(v, true);
  const live = connect(liveOptions(v));
  await followClock(live);
  const kube = new KubeClient(live.kube);
  const view = await new NodeClient(kube).getNode(node);
  if (view === undefined) return nodeNotFound(node);
  // A dry run: it plans and reports, changes nothing and tells no Event.
  const report = await runSweep(live.deps(settings, live.localDrains(settings)), { region: live.region });
  const now = live.clock.now();
  const instanceId = instanceOf(report, node);
  const target = { node, ...(instanceId !== undefined ? { instanceId } : {}) };
  const arn = str(v['drain-state-machine']);
  const endpoint = str(v['endpoint-url']);
  const drains = await recordedDrain(
    view,
    now,
    arn !== undefined ? { arn, region: live.region, ...(endpoint !== undefined ? { endpoint } : {}) } : undefined,
  );
  const entries = [
    ...(await nodeEvents(kube, node)),
    ...drains.rows.flatMap((row) => drainEntries(row, now)),
    ...entriesOfReport(report, now, 'sweep (dry run)', target),
  ];
  const explanation: NodeExplanation = { ...target, entries: inTimeOrder(entries) };
  out(
    mode === 'json'
      ? JSON.stringify(explanationJson(explanation), null, 2)
      : formatExplanation(explanation, tableStyle(mode)),
  );
  for (const error of [...report.errors, ...(drains.error ? [drains.error] : [])]) err(`error: ${error}`);
  return EXIT.ok;
};
