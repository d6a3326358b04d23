/**
 * Synthesizing the reconciler for assertion tests: bundling skipped (context
 * `aws:cdk:bundling-stacks: []`), one template per distinct set of props, built once per test file.
 */
import { App, Stack, type StackProps } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { DEFAULT_ENTRIES, type FunctionKind } from '../../../infra/functions.js';
import { NodeReconciler, type NodeReconcilerProps } from '../../../infra/node-reconciler.js';

export const CLUSTER = 'demo';

/** Entry files for NodejsFunction (which refuses a missing entry even when bundling is skipped): the real handlers. */
export function testEntries(): Record<FunctionKind, string> {
  return { ...DEFAULT_ENTRIES };
}

export interface Synthesized {
  readonly app: App;
  readonly stack: Stack;
  readonly reconciler: NodeReconciler;
  readonly template: Template;
}

export interface SynthOptions {
  readonly props?: Partial<NodeReconcilerProps>;
  readonly stackProps?: StackProps;
  /** @default 'Test' */
  readonly stackId?: string;
  /** Adds constructs (a cluster, a topic) to the stack before the reconciler and returns props using them. */
  readonly prepare?: (stack: Stack) => Partial<NodeReconcilerProps>;
}

/** A stack with one NodeReconciler, bundling skipped. */
export function synthesize(options: SynthOptions = {}): Synthesized {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, options.stackId ?? 'Test', options.stackProps);
  const prepared = options.prepare?.(stack) ?? {};
  const reconciler = new NodeReconciler(stack, 'Reconciler', {
    clusterName: CLUSTER,
    entries: testEntries(),
    ...prepared,
    ...options.props,
  });
  return { app, stack, reconciler, template: Template.fromStack(stack) };
}

let defaultSynth: Synthesized | undefined;

/** The default reconciler, synthesized once per test file and shared by its tests. */
export function defaultStack(): Synthesized {
  defaultSynth ??= synthesize();
  return defaultSynth;
}
