// The CDK app of cdk.json: `npx cdk synth -c clusterName=<name> -c region=<region>` (see app-context.ts for the keys).
import { App } from 'aws-cdk-lib';
import { unknownContextKeys } from './app-context.js';
import { buildReconcilerApp, isUsageError } from './reconciler-app.js';

const app = new App();
// First: a mistyped key may be why a value below is missing.
for (const unknown of unknownContextKeys(app.node.getAllContext() as Record<string, unknown>)) {
  console.error(`ec2-node-reconciler: ignoring context ${unknown}`);
}
try {
  buildReconcilerApp(app, process.env);
} catch (error) {
  if (!isUsageError(error)) throw error;
  console.error(`ec2-node-reconciler: ${error.message}`);
  process.exit(1);
}
