// `drain` and `decommission`: an operator's cordon and drain, with kubectl drain semantics.
import { Ec2Adapter } from '../../aws/ec2.js';
import { createAwsClients } from '../../aws/clients.js';
import { DECOMMISSION_TAG } from '../../contract/labels.js';
import { runOperatorDrain } from '../../drain/operator-drain.js';
import { endLines, progressLine } from '../../drain/pod-report.js';
import { KubeClient } from '../../kube/client.js';
import { NodeFinder } from '../../kube/find-node.js';
import { NodeClient } from '../../kube/nodes.js';
import { isInstanceId, type InstanceId } from '../../model/instance-id.js';
import type { CommandRun } from '../command-run.js';
import { CliError, EXIT } from '../exit-codes.js';
import { connect } from '../live.js';
import { settingsFromFlags } from '../settings-flags.js';
import { err, followClock, liveOptions, out, str } from './shared.js';

export const runDrainCommand: CommandRun = async (v, [node]) => {
  if (!node) throw new CliError('drain: which node? (drain NODE)');
  const settings = settingsFromFlags({ ...v, ...(str(v['timeout']) ? { 'drain-timeout': v['timeout'] } : {}) }, false);
  const live = connect({ ...liveOptions(v), cluster: str(v['cluster']) ?? 'unnamed' });
  await followClock(live);
  const result = await runOperatorDrain(
    live.drainDeps(settings, (r) => err(`${node}: ${progressLine(r.counts, r.blocked)}`)),
    {
      node,
      reason: str(v['reason']) ?? 'manual drain',
      timeoutMs: settings.drainTimeout,
    },
  );
  out(`${node}: ${result.status}${result.message ? ` — ${result.message}` : ''}`);
  for (const line of endLines(result.pods)) out(`  ${line}`);
  // Like kubectl drain: anything but a drained node (pods left, a replaced or vanished node, an uncordon) exits 1.
  return result.status === 'drained' ? EXIT.ok : EXIT.findings;
};

export const runDecommissionCommand: CommandRun = async (v, [id]) => {
  if (!isInstanceId(id)) throw new CliError(`decommission: not an EC2 instance id: ${JSON.stringify(id ?? '')}`);
  const instanceId: InstanceId = id;
  const settings = settingsFromFlags(v, false);
  const live = connect(liveOptions(v));
  await followClock(live);
  const reason = str(v['reason']) ?? `decommissioned by ${process.env['USER'] ?? 'operator'}`;
  const ec2 = new Ec2Adapter(
    createAwsClients({ region: live.region, ...(str(v['endpoint-url']) ? { endpoint: str(v['endpoint-url']) } : {}) })
      .ec2,
  );
  await ec2.tagDecommission(instanceId, reason);
  out(`tagged ${instanceId} with ${DECOMMISSION_TAG}=${reason}`);
  if (v['now'] !== true) return EXIT.ok;
  const lookup = await ec2.describeByIds([instanceId]);
  const dnsName = lookup.found[0]?.privateDnsName;
  // The operator named the instance: its Node may be looked for everywhere, by name too.
  const { node } = await new NodeFinder(new NodeClient(new KubeClient(live.kube))).find(instanceId, {
    ...(dnsName ? { privateDnsName: dnsName, names: [dnsName] } : {}),
    scan: true,
  });
  if (!node) throw new CliError(`no Node found for ${instanceId}`, EXIT.findings);
  const result = await runOperatorDrain(
    live.drainDeps(settings, (r) => err(`${node.name}: ${progressLine(r.counts, r.blocked)}`)),
    {
      node: node.name,
      reason,
      timeoutMs: settings.drainTimeout,
      expectedUid: node.uid,
    },
  );
  out(`${node.name}: ${result.status}${result.message ? ` — ${result.message}` : ''}`);
  for (const line of endLines(result.pods)) out(`  ${line}`);
  return result.status === 'drained' ? EXIT.ok : EXIT.findings;
};
