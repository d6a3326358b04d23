// The CDK app of cdk.json: `npx cdk synth -c clusterName=<name>` (see app-context.ts for the keys).
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readAppOptions, reconcilerStackProps, unknownContextKeys, type AppOptions } from './app-context.js';
import { ReconcilerStack } from './stack.js';

const app = new App();
let options: AppOptions;
try {
  options = readAppOptions((key) => app.node.tryGetContext(key), process.env);
} catch (error) {
  // A usage error: the message says what to pass; a stack trace would bury it.
  console.error(`ec2-node-reconciler: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
for (const unknown of unknownContextKeys(app.node.getAllContext() as Record<string, unknown>)) {
  console.error(`ec2-node-reconciler: ignoring context ${unknown}`);
}

new ReconcilerStack(app, options.stackName, reconcilerStackProps(options));

// cdk-nag as a synth-time policy check: a violation that was not acknowledged with a reason fails the synth.
if (options.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
