// `decommission INSTANCE|NODE`: the decommission tag on the instance (the next event or sweep drains
// it); with --now, the operator's cordon and drain at once; with --undo, the tag removed again.
import { createAwsClients } from '../../lib/aws/clients.js';
import { Ec2Adapter } from '../../lib/aws/ec2.js';
import {
  DECOMMISSION_TAG,
  DRAIN_ANNOTATION,
  DRAIN_OUTCOME_ANNOTATION,
} from '@ec2-node-reconciler/model/contract/labels.js';
import { runOperatorDrain } from '../drain/operator-drain.js';
import { progressLine } from '../../lib/drain/pod-report.js';
import { KubeClient } from '../../lib/kube/client.js';
import { NodeFinder } from '../../lib/kube/find-node.js';
import { NodeClient } from '../../lib/kube/nodes.js';
import { isInstanceId, type InstanceId } from '@ec2-node-reconciler/model/instance-id.js';
import type { NodeView } from '@ec2-node-reconciler/model/observation.js';
import { nodeInstanceId } from '@ec2-node-reconciler/model/provider-id.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import type { CommandRun } from '../command-run.js';
import { CliError, EXIT } from '../exit-codes.js';
import { connect, type Live } from '../live.js';
import type { Progress } from '../progress.js';
import { settingsFromFlags } from '../settings-flags.js';
import { printDrainEnd } from './drain.js';
import { followClock, liveOptions, nodeNotFound, out, progressOf, str } from './shared.js';
import { describeNodeCordon } from './uncordon.js';

/** What the operator named: an instance id, or a node whose instance is found from it. */
type Target = { readonly instanceId: InstanceId } | { readonly node: string };

/** An instance id, a node's name, or (`i-` and no dot, yet no instance id) a mistyped instance id: exit 2. */
function targetOf(text: string): Target {
  if (isInstanceId(text)) return { instanceId: text };
  if (/^i-[^.]*$/.test(text)) throw new CliError(`decommission: not an EC2 instance id: ${JSON.stringify(text)}`);
  return { node: text };
}

/** The instance and (when known) the node of a target; a message and exit 1 when there is none. */
async function resolve(
  target: Target,
  nodes: NodeClient,
): Promise<{ instanceId: InstanceId; node?: NodeView } | { exit: number }> {
  if ('instanceId' in target) return { instanceId: target.instanceId };
  const node = await nodes.getNode(target.node);
  if (!node) return { exit: nodeNotFound(target.node) };
  const instanceId = nodeInstanceId(node);
  if (instanceId === undefined)
    throw new CliError(
      `node ${node.name} names no EC2 instance (providerID ${node.providerID ?? 'none'}): decommission an instance id`,
      EXIT.findings,
    );
  return { instanceId, node };
}

/** EC2's answer for an instance it does not know (CreateTags, DeleteTags on an unknown id). */
const isUnknownInstance = (error: unknown): boolean =>
  error instanceof Error && error.name === 'InvalidInstanceID.NotFound';

const noInstance = (id: InstanceId, region: string): CliError =>
  new CliError(`no instance ${id} in ${region} (EC2 does not know it)`, EXIT.findings);

/** The instance's node: the one the operator named, else found by providerID, name or private DNS name. */
async function nodeOf(
  nodes: NodeClient,
  instanceId: InstanceId,
  known: NodeView | undefined,
  privateDnsName: string | undefined,
): Promise<NodeView | undefined> {
  if (known) return known;
  // The operator named the instance: its Node may be looked for everywhere, by name too.
  const found = await new NodeFinder(nodes).find(instanceId, {
    ...(privateDnsName ? { privateDnsName, names: [privateDnsName] } : {}),
    scan: true,
  });
  return found.node;
}

async function undo(
  live: Live,
  ec2: Ec2Adapter,
  nodes: NodeClient,
  instanceId: InstanceId,
  known: NodeView | undefined,
): Promise<number> {
  const lookup = await ec2.describeByIds([instanceId]);
  const failed = lookup.errors.get(instanceId);
  if (failed !== undefined) throw new Error(`describing instance ${instanceId}: ${failed}`);
  const instance = lookup.found[0];
  if (!instance) throw noInstance(instanceId, live.region);
  const value = instance.tags[DECOMMISSION_TAG];
  if (value === undefined) {
    out(`${instanceId} has no ${DECOMMISSION_TAG} tag: nothing to undo`);
    return EXIT.ok;
  }
  await ec2.untagDecommission(instanceId, value);
  out(`removed ${DECOMMISSION_TAG}=${value} from ${instanceId}: no event or sweep drains it for that any more`);
  const node = await nodeOf(nodes, instanceId, known, instance.privateDnsName);
  if (node?.unschedulable === true) {
    const running =
      node.annotations[DRAIN_ANNOTATION] !== undefined && node.annotations[DRAIN_OUTCOME_ANNOTATION] === undefined;
    out(
      `its node ${node.name} is still cordoned (${describeNodeCordon(node)}); \`ec2-node-reconciler uncordon ${node.name}\` makes it schedulable${running ? ' and stops the drain it records' : ''}`,
    );
  }
  return EXIT.ok;
}

async function drainNow(
  live: Live,
  progress: Progress,
  settings: Settings,
  node: NodeView,
  reason: string,
): Promise<number> {
  const result = await runOperatorDrain(
    live.drainDeps(settings, (r) => progress.update(node.name, `${node.name}: ${progressLine(r.counts, r.blocked)}`)),
    { node: node.name, reason, timeoutMs: settings.drainTimeout, expectedUid: node.uid },
    live.lifecycle,
  );
  progress.end(node.name);
  printDrainEnd(node.name, result);
  return result.status === 'drained' ? EXIT.ok : EXIT.findings;
}

export const runDecommissionCommand: CommandRun = async (v, [text]) => {
  if (text === undefined) throw new CliError('decommission: which instance or node? (decommission INSTANCE|NODE)');
  const target = targetOf(text);
  const undoing = v['undo'] === true;
  if (undoing && v['now'] === true) throw new CliError('--undo and --now: pass one of them');
  if (undoing && str(v['reason']) !== undefined) throw new CliError('--reason is the tag’s value; --undo takes none');
  const settings = settingsFromFlags(v, false);
  const progress = progressOf(v);
  const live = connect(liveOptions(v));
  await followClock(live);
  const nodes = new NodeClient(new KubeClient(live.kube));
  const resolved = await resolve(target, nodes);
  if ('exit' in resolved) return resolved.exit;
  const { instanceId, node: known } = resolved;
  const ec2 = new Ec2Adapter(
    createAwsClients({ region: live.region, ...(str(v['endpoint-url']) ? { endpoint: str(v['endpoint-url']) } : {}) })
      .ec2,
  );
  if (undoing) return undo(live, ec2, nodes, instanceId, known);

  const reason = str(v['reason']) ?? `decommissioned by ${process.env['USER'] ?? 'operator'}`;
  try {
    await ec2.tagDecommission(instanceId, reason);
  } catch (error) {
    if (isUnknownInstance(error)) throw noInstance(instanceId, live.region);
    throw error;
  }
  out(`tagged ${instanceId} with ${DECOMMISSION_TAG}=${reason}`);
  if (v['now'] !== true) return EXIT.ok;
  const dnsName = known ? undefined : (await ec2.describeByIds([instanceId])).found[0]?.privateDnsName;
  const node = await nodeOf(nodes, instanceId, known, dnsName);
  if (!node) throw new CliError(`no Node found for ${instanceId}`, EXIT.findings);
  return drainNow(live, progress, settings, node, reason);
};
