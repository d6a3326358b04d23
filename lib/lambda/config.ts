import * as z from 'zod';
import { describeIssues } from '@ec2-node-reconciler/model/zod-issues.js';
import { SettingsSchema, type Settings } from '@ec2-node-reconciler/model/contract/settings.js';
import { FUNCTION_ENV } from '@ec2-node-reconciler/model/contract/env.js';

export interface FunctionConfig {
  readonly clusterName: string;
  readonly region: string;
  readonly settings: Settings;
  readonly drainStateMachineArn?: string;
  readonly outputEventBusName?: string;
  /** Auto Scaling groups configured as the cluster's (the deployment's autoScalingGroupNames). */
  readonly autoScalingGroupNames?: readonly string[];
  /** The terminate hooks the reconciler completes (the deployment's lifecycleHookNames). */
  readonly lifecycleHookNames?: readonly string[];
}

const EnvSchema = z.object({
  [FUNCTION_ENV.clusterName]: z.string().min(1),
  AWS_REGION: z.string().min(1),
  [FUNCTION_ENV.settings]: z.string().optional(),
  [FUNCTION_ENV.drainStateMachineArn]: z.string().min(1).optional(),
  [FUNCTION_ENV.outputEventBusName]: z.string().min(1).optional(),
  [FUNCTION_ENV.autoScalingGroupNames]: z.string().optional(),
  [FUNCTION_ENV.lifecycleHookNames]: z.string().optional(),
});

/**
 * Reads and validates the function's configuration at cold start: a bad setting fails fast,
 * naming the environment variable and the field, instead of misbehaving later.
 */
export function readFunctionConfig(env: Readonly<Record<string, string | undefined>>): FunctionConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid function configuration: ${describeIssues(parsed.error)}`);
  }
  const vars = parsed.data;
  let raw: unknown = {};
  const text = vars[FUNCTION_ENV.settings];
  if (text !== undefined && text.trim() !== '') {
    try {
      raw = JSON.parse(text);
    } catch (cause) {
      throw new Error(`invalid function configuration: ${FUNCTION_ENV.settings} is not JSON`, { cause });
    }
  }
  const settings = SettingsSchema.safeParse(raw);
  if (!settings.success) {
    throw new Error(`invalid function configuration: ${describeIssues(settings.error, `${FUNCTION_ENV.settings}.`)}`);
  }
  const arn = vars[FUNCTION_ENV.drainStateMachineArn];
  const bus = vars[FUNCTION_ENV.outputEventBusName];
  const list = (text: string | undefined) =>
    (text ?? '')
      .split(',')
      .map((g) => g.trim())
      .filter((g) => g !== '');
  const groups = list(vars[FUNCTION_ENV.autoScalingGroupNames]);
  const hooks = list(vars[FUNCTION_ENV.lifecycleHookNames]);
  return {
    clusterName: vars[FUNCTION_ENV.clusterName],
    region: vars.AWS_REGION,
    settings: settings.data,
    ...(arn ? { drainStateMachineArn: arn } : {}),
    ...(bus ? { outputEventBusName: bus } : {}),
    ...(groups.length > 0 ? { autoScalingGroupNames: groups } : {}),
    ...(hooks.length > 0 ? { lifecycleHookNames: hooks } : {}),
  };
}
