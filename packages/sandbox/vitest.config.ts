import { defineConfig } from 'vitest/config';

// The sandbox's own tests (`npm test -w @ec2-node-reconciler/sandbox`); the repository's `npm test` runs them too.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // They start emulators and real CLIs (kubectl, aws, moto): room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
