// The drain workflow's task: one drain step bounded by the invocation's remaining time; the state
// machine waits and calls again until done or past the deadline.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { AutoScalingAdapter } from '../lib/aws/autoscaling.js';
import { endLines } from '../lib/drain/pod-report.js';
import type { DrainStepResult } from '../lib/drain/step-result.js';
import { readFunctionConfig } from '../lib/lambda/config.js';
import { timeLeftIn } from '../lib/lambda/time-left.js';
import { recordDrainNotice, runDrainStepTask, type DrainNoticeOutput } from '../lib/lambda/drain-step-task.js';
import { KubeClient } from '../lib/kube/client.js';
import { NodeClient } from '../lib/kube/nodes.js';
import { NodeEventRecorder } from '../lib/kube/events.js';
import { WarmRuntime } from '../lib/lambda/runtime.js';
import {
  createTelemetry,
  recordDrainStepMetrics,
  recordRepairCompletionMetrics,
  telemetryMiddlewares,
} from '../lib/lambda/telemetry.js';
import { isDrainNotice, type DrainStepOutput } from '@ec2-node-reconciler/model/contract/drain-workflow.js';

const config = readFunctionConfig(process.env);
const runtime = new WarmRuntime(config);
const { logger, metrics } = createTelemetry(config.clusterName);
const autoScaling = new AutoScalingAdapter(runtime.aws.autoScaling);

/** A heartbeat call gets this long, retries included: it must not eat the step. */
const HEARTBEAT_TIMEOUT_MS = 3_000;

async function step(payload: unknown, context: Context): Promise<DrainStepOutput | DrainNoticeOutput> {
  if (isDrainNotice(payload)) {
    const kube = new KubeClient(await runtime.kubeConnection(), timeLeftIn(context));
    const recorded = await recordDrainNotice(payload, new NodeEventRecorder(kube, runtime.clock));
    logger.info('drain notice recorded', { event: recorded.recorded });
    return recorded;
  }
  let last: DrainStepResult | undefined;
  const deps = await runtime.drainDeps(config.settings, {
    ...timeLeftIn(context),
    onProgress: (result) => {
      last = result;
    },
  });
  const kube = new KubeClient(await runtime.kubeConnection(), timeLeftIn(context));
  const nodes = new NodeClient(kube);
  const events = new NodeEventRecorder(kube, runtime.clock);
  const output = await runDrainStepTask(payload, deps, context.getRemainingTimeInMillis(), {
    // The step that sees a repair drain end marks the machine for its group to replace (docs/design.md §1b).
    repair: {
      getNode: (name) => nodes.getNode(name),
      markUnhealthy: (instanceId) => autoScaling.markUnhealthy(instanceId),
      recordEvent: (event) => events.record(event),
      now: () => runtime.clock.now(),
      heartbeatGraceMs: config.settings.heartbeatGrace,
    },
    onRepair: (completion) => {
      if (completion.kind === 'not-ours') return;
      if (completion.kind === 'failed')
        logger.warn('repair not completed by the drain step; the next sweep replaces the machine', {
          error: completion.error,
        });
      else logger.info('repair drain ended', { ...completion });
      recordRepairCompletionMetrics(metrics, completion);
    },
    // Every invocation keeps the hook alive first, retries included (infra/heartbeat-gap.ts).
    heartbeat: (instanceId, lifecycle) =>
      autoScaling.recordHeartbeat(instanceId, lifecycle, AbortSignal.timeout(HEARTBEAT_TIMEOUT_MS)),
    onHeartbeatFailed: (error, lifecycle) =>
      logger.warn('lifecycle heartbeat failed; the drain goes on', {
        group: lifecycle.group,
        hook: lifecycle.hook,
        error: error instanceof Error ? error.message : String(error),
      }),
  });
  // The step output names 10 pods at most; the log of the last step names every pod left and every grace period shortened.
  if (output.outcome !== 'continue' && last)
    logger.info('drain ended', { outcome: output.outcome, message: last.message, pods: endLines(last.pods) });
  recordDrainStepMetrics(metrics, output);
  logger.info('drain step', { outcome: output.outcome, deadline: output.deadline, summary: output.summary });
  return output;
}

export const handler = middy(step).use(await telemetryMiddlewares({ logger, metrics }));
