import { defineConfig } from 'vitest/config';
import HeaviestFirstSequencer from './test/support/heaviest-first.sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // Integration tests start emulators and real CLIs (kubectl, aws, moto): give them room on a 2-core machine.
    // The limit catches a hang, not slowness: the heaviest scenario runs take 60 s at a load average of 15.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: one on a 2-core machine, idle half the time while
    // tests wait on subprocesses and sockets. Two keep both cores busy (full suite: 8 m 20 s → 6 m 57 s).
    maxWorkers: 2,
    // The longest files start first, so neither worker is left alone with one at the end (the file says why).
    sequence: { sequencer: HeaviestFirstSequencer },
    // The CLI the binary runs (dist/cli), built once before any test.
    globalSetup: ['test/support/build-cli.setup.ts'],
    // Every test file: no secret in anything logged while it runs (test/support/secrets-in-logs.setup.ts).
    setupFiles: ['test/support/secrets-in-logs.setup.ts'],
  },
});
