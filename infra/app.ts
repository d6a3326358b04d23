// The CDK app of cdk.json: `npx cdk synth -c clusterName=<name>` (see app-context.ts for the keys).
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readAppOptions, type AppOptions } from './app-context.js';
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

new ReconcilerStack(app, options.stackName, {
  env: options.region || options.account ? { region: options.region, account: options.account } : undefined,
  clusterNames: options.clusterNames,
  reconciler: {
    settings: options.settings,
    autoScalingGroupNames: options.autoScalingGroupNames ? [...options.autoScalingGroupNames] : undefined,
  },
});

// cdk-nag as a synth-time policy check: a violation that was not acknowledged with a reason fails the synth.
if (options.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
