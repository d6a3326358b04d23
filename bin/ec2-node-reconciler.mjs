#!/usr/bin/env node
// Runs the TypeScript CLI directly (tsx), so the repository needs no build step to be used. The
// version check comes before any import of the CLI: on an older Node its dependencies would crash
// with a stack trace instead of a message.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `ec2-node-reconciler needs Node.js 22.19 or newer (Node 24 LTS recommended); this is ${process.version}.\n` +
      'Run it through npm (`npm start`, `npx ec2-node-reconciler`): `npm ci` brings Node 24 into node_modules/.bin, which npm puts first on PATH.\n',
  );
  process.exit(2);
}
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../lib/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
