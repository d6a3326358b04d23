// What a drain works with, built in one place for every runner: the drain-step function (over the
// warm container's connection), the command line (over the kubeconfig's) and the operator of a
// simulated cluster (over the sandbox's, on its clock).
import { sleepOn, type Clock } from '@ec2-node-reconciler/model/clock.js';
import type { Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { KubeClient, type KubeClientOptions, type KubeConnection } from '../kube/client.js';
import { kubeDrainApi } from './kube-api.js';
import { drainSettings } from './settings.js';
import type { DrainDeps } from './step.js';
import type { DrainStepResult } from './step-result.js';

export interface DrainDepsOptions {
  readonly connection: KubeConnection;
  readonly clock: Clock;
  readonly settings: Settings;
  /** How to wait, inside a step and before the client's retries. @default the clock's own (sleepOn) */
  readonly sleep?: (ms: number) => Promise<void>;
  /** The client's per-call limits (a Lambda's time left). */
  readonly client?: Omit<KubeClientOptions, 'sleep'>;
  readonly onProgress?: (progress: DrainStepResult) => void;
}

export function drainDeps(options: DrainDepsOptions): DrainDeps {
  const sleep = options.sleep ?? sleepOn(options.clock);
  return {
    api: kubeDrainApi(new KubeClient(options.connection, { ...options.client, sleep })),
    clock: options.clock,
    settings: drainSettings(options.settings),
    sleep,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
}
