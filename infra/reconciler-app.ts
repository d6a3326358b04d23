// What the app of cdk.json builds from its context, apart from app.ts (which synthesizes on import)
// so that tests build exactly the shipped app from a context as `cdk synth -c key=value` passes it.
import { Validations, type App, type IPolicyValidationPlugin } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ContextError, readAppOptions, reconcilerStackProps } from './app-context.js';
import { InvalidPropsError } from './invalid-props.js';
import { ReconcilerStack } from './stack.js';

export interface ReconcilerApp {
  readonly stack: ReconcilerStack;
  /** The synth-time policy checks added to the app: cdk-nag's AwsSolutions unless context `nag` is false. */
  readonly checks: readonly IPolicyValidationPlugin[];
}

/** The stack of the app's context, and its synth-time checks. */
export function buildReconcilerApp(app: App, env: Readonly<Record<string, string | undefined>>): ReconcilerApp {
  const options = readAppOptions((key) => app.node.tryGetContext(key), env);
  const stack = new ReconcilerStack(app, options.stackName, reconcilerStackProps(options));
  // A violation that was not acknowledged with a reason fails the synth.
  const checks = options.nag ? [new AwsSolutionsChecks(app)] : [];
  if (checks.length > 0) Validations.of(app).addPlugins(...checks);
  return { stack, checks };
}

/** A mistake of the deployer's (a context key, a prop): its message says what to fix, with no stack trace. */
export const isUsageError = (error: unknown): error is Error =>
  error instanceof ContextError || error instanceof InvalidPropsError;
