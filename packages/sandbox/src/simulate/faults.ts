// A scenario's `faults` (v1.1): API failures injected on the virtual clock, into the AWS emulator by
// IAM action name (`ec2:DescribeInstanceStatus`) or into the Kubernetes emulator by HTTP verb and
// path (`kube:PATCH /api/v1/nodes/*`, where `*` is one path segment).
import type { VirtualClock } from '@ec2-node-reconciler/model/clock.js';
import type { AwsEmulator } from '../aws/index.js';
import { isServiceName } from '../aws/services/names.js';
import type { KubeEmulator } from '../kube/index.js';
import type { ScenarioFault } from '../scenario/schema.js';

/** Kubernetes verbs an HTTP method stands for. */
const KUBE_VERBS: Readonly<Record<string, readonly string[]>> = {
  GET: ['get', 'list', 'watch'],
  POST: ['create'],
  PUT: ['update'],
  PATCH: ['patch'],
  DELETE: ['delete', 'deletecollection'],
};

/** The service's usual error code for a status, when the fault names none. */
function awsCode(service: string, status: number): string {
  if (status === 503) return service === 'ec2' ? 'Unavailable' : 'ServiceUnavailable';
  if (status === 400) return 'ValidationError';
  return 'InternalError';
}

const escape = (text: string): string => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** Arms each fault at its `from` (scenario time) and disarms it at its `until`. */
export function injectFaults(
  faults: readonly ScenarioFault[],
  where: { clock: VirtualClock; start: number; aws: AwsEmulator; kube: KubeEmulator },
): void {
  for (const fault of faults) {
    const arm = armer(fault, where);
    let disarm: (() => void) | undefined;
    const from = where.start + (fault.from ?? 0);
    if (from <= where.clock.now()) disarm = arm();
    else where.clock.schedule(from, () => (disarm = arm()));
    if (fault.until !== undefined) where.clock.schedule(where.start + fault.until, () => disarm?.());
  }
}

function armer(fault: ScenarioFault, { aws, kube }: { aws: AwsEmulator; kube: KubeEmulator }): () => () => void {
  const times = fault.times !== undefined ? { times: fault.times } : {};
  if (fault.api.startsWith('kube:')) {
    const [method = '', path = ''] = fault.api.slice('kube:'.length).split(' ');
    const pattern = new RegExp(`^${path.split('*').map(escape).join('[^/]+')}$`);
    return () =>
      kube.faults.add({
        verb: KUBE_VERBS[method] ?? [],
        path: pattern,
        effect: { status: fault.status, ...(fault.code !== undefined ? { reason: fault.code } : {}) },
        ...times,
      });
  }
  const [service = '', operation = ''] = fault.api.split(':');
  if (!isServiceName(service)) throw new Error(`faults: the sandbox does not emulate ${service} (${fault.api})`);
  const code = fault.code ?? awsCode(service, fault.status);
  return () =>
    aws.faults.fail({
      service,
      operation,
      code,
      status: fault.status,
      message: `injected by the scenario (${fault.api})`,
      ...(fault.times !== undefined ? { count: fault.times } : {}),
    });
}
