/**
 * The app of cdk.json, built in process from a context as `cdk synth -c key=value` passes it: cdk.json's
 * context, then each `-c` value as a string (the CLI splits at the first `=` and never parses the
 * value), bundling skipped. What infra/app.ts builds, through the same buildReconcilerApp.
 */
import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { PROJECT_ROOT } from '../../../infra/functions.js';
import { buildReconcilerApp, type ReconcilerApp } from '../../../infra/reconciler-app.js';

/** The environment of a deployer whose region is set. */
export const DEPLOYER_ENV: Readonly<Record<string, string>> = { AWS_REGION: 'eu-west-1' };

/** cdk.json's context, as shipped. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(`${PROJECT_ROOT}cdk.json`, 'utf8')) as { context?: Record<string, unknown> };
  return cdkJson.context ?? {};
}

/** `-c` arguments (`key=value`) as the CDK CLI reads them: split at the first `=`, the value kept a string. */
export function cliContext(args: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    args.map((arg) => {
      const at = arg.indexOf('=');
      if (at <= 0) throw new Error(`-c ${arg}: not key=value`);
      return [arg.slice(0, at), arg.slice(at + 1)];
    }),
  );
}

export interface ShippedApp extends ReconcilerApp {
  readonly app: App;
  /** Every context key of the run, cdk.json's and the command line's. */
  readonly context: Readonly<Record<string, unknown>>;
}

/** The shipped app for `cdk synth -c <args…>` (over cdk.json's context), with bundling skipped. */
export function shippedApp(args: readonly string[], env: Readonly<Record<string, string>> = DEPLOYER_ENV): ShippedApp {
  const context = { ...cdkJsonContext(), ...cliContext(args) };
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  return { app, ...buildReconcilerApp(app, env), context };
}

/** The stack's template. */
export const templateOf = (shipped: ShippedApp): Template => Template.fromStack(shipped.stack);

/** Every warning and info the synth reports for the stack, by message. */
export function annotationsOf(shipped: ShippedApp): string[] {
  const annotations = Annotations.fromStack(shipped.stack);
  return [...annotations.findWarning('*', Match.anyValue()), ...annotations.findInfo('*', Match.anyValue())].map(
    (message) => JSON.stringify(message.entry.data),
  );
}
