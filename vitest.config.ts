import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // Integration tests start emulators and real CLIs (kubectl, aws, moto): give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The CLI the binary runs (dist/cli), built once before any test.
    globalSetup: ['test/support/build-cli.setup.ts'],
  },
});
