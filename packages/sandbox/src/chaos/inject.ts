// Arms a chaos profile on a running sandbox: seeded faults on every call the deployed stack makes
// (its functions' and its services' calls to AWS and to the Kubernetes API), and killed Lambda
// invocations. A fault is decided by the seed and the request's identity alone — who calls, which
// operation on which path, and the how-many-th such request it is (dice.ts) — never by the moment
// (an SDK's jittered retry, a sweep's start, differ from run to run) nor by what the request
// carries (a Node's uid, a deadline or an event time in a body differ from run to run): so a seed
// replays exactly. The operator's own calls (the admin's kubectl, the scenario's steps) are left
// alone: they are the scenario's input, not the system under test.
import { roleKey } from '../aws/iam/index.js';
import type { FaultDecision } from '../aws/faults.js';
import { DEFAULT_CREDENTIALS } from '../aws/sigv4.js';
import type { FaultEffect, FaultTarget } from '../kube/faults.js';
import type { CrashPlan } from '../lambda/function-host.js';
import type { Sandbox } from '../simulate/sandbox.js';
import type { Dice } from './dice.js';
import { noFaults, type ChaosProfile, type FaultCounts, type FaultKind } from './profile.js';

export interface ArmedChaos {
  /** What was injected so far, by kind. */
  readonly injected: FaultCounts;
  /** Stops injecting: what is in flight finishes, nothing new is faulted or killed. */
  disarm(): void;
}

const CONFLICT_MESSAGE = (name: string) =>
  `Operation cannot be fulfilled on nodes "${name}": the object has been modified; please apply your changes to the latest version and try again`;

export function armChaos(sandbox: Sandbox, profile: ChaosProfile, dice: Dice): ArmedChaos {
  const injected = noFaults();
  const inject = <T>(kind: FaultKind, effect: T): T => {
    injected[kind] += 1;
    return effect;
  };

  // The stack's Kubernetes identities: its roles' sessions, as the EKS access entries map them.
  const entries = sandbox.stack.deployment.accessEntries;
  const isStackUser = (user: string): boolean =>
    entries.some((e) => e.username === user || (e.username === undefined && roleKey(user) === roleKey(e.principalArn)));

  const { kube: k, aws: a, lambda: l } = profile;
  const kubeFault = (target: FaultTarget): FaultEffect | undefined => {
    if (target.user === undefined || !isStackUser(target.user)) return undefined;
    const [conflict, fault, which] = dice.roll(`kube ${target.user} ${target.verb} ${target.path}`);
    if (target.verb === 'patch' && target.resource === 'nodes' && target.subresource === '')
      if (conflict < k.nodePatchConflicts)
        return inject('kube-409-node-patch', {
          status: 409,
          reason: 'Conflict',
          message: CONFLICT_MESSAGE(target.name),
        });
    if (fault < k.serverErrors)
      return which < 0.5 ? inject('kube-500', { status: 500 }) : inject('kube-503', { status: 503 });
    if (fault < k.serverErrors + k.timeouts)
      return which < 0.5
        ? inject('kube-504', {
            status: 504,
            reason: 'Timeout',
            message: 'Timeout: request did not complete within the allotted timeout',
          })
        : inject('kube-answer-lost', { lost: true });
    if (fault < k.serverErrors + k.timeouts + k.resets) return inject('kube-reset', { reset: true });
    return undefined;
  };

  const awsFault = (
    service: string,
    operation: string,
    call: { readonly accessKeyId?: string; readonly params?: unknown },
  ): FaultDecision | undefined => {
    // The sandbox's own credentials are the operator's (and the scenario's set-up).
    if (call.accessKeyId === undefined || call.accessKeyId === DEFAULT_CREDENTIALS.accessKeyId) return undefined;
    const [throttle, reset, which] = dice.roll(`aws ${call.accessKeyId} ${service}:${operation}`);
    if (a.throttledServices.includes(service) && throttle < a.throttling)
      return inject('aws-throttle', { kind: 'throttle' });
    if (reset < a.resets)
      return which < 0.5 ? inject('aws-reset', { kind: 'reset' }) : inject('aws-answer-lost', { kind: 'lost' });
    return undefined;
  };

  const crashes: CrashPlan = (invocation) => {
    const [kill, after] = dice.roll(`lambda ${invocation.functionName}`);
    if (kill >= l.kills) return undefined;
    return inject('lambda-killed', Math.floor(after * (l.maxRequestsBeforeKill + 1)));
  };

  const removeKube = sandbox.kube.faults.addDecider(kubeFault);
  const removeAws = sandbox.aws.faults.addDecider(awsFault);
  const hosts = [...sandbox.lambda.hosts.values()];
  for (const host of hosts) host.crashes = crashes;
  return {
    injected,
    disarm() {
      removeKube();
      removeAws();
      for (const host of hosts) host.crashes = undefined;
    },
  };
}
