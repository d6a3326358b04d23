// The order test files start in. With two workers, the run ends when the last long file does: vitest
// starts the files it has timed before longest first, but a fresh clone (CI) has no such record, and
// vitest then starts the larger files first. test/chaos.test.ts is small and the longest of all
// (~220 s beside the others): started eighth from last, it made the suite's last 220 s its own, on one
// worker, while the other had nothing left (fresh-clone `bash .ci/run`: vitest 694 s; the files sum to
// 1,129 s of worker time, ~565 s on each of two workers).
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first: each took over 30 s within a fresh-clone `bash .ci/run`
 * on the 2-core machine (test/chaos.test.ts 220 s … packages/sandbox/test/aws/deployment-apis.test.ts
 * 32 s). A file that grows long belongs here; one missing only starts in vitest's order, which costs
 * time, never a test.
 */
export const HEAVIEST_FILES: readonly string[] = [
  'test/chaos.test.ts',
  'test/scenarios.test.ts',
  'test/cli/simulate-replay.test.ts',
  'test/sfn/drain-workflow.properties.test.ts',
  'test/cli/operator.test.ts',
  'test/properties/plan.properties.test.ts',
  'test/simulate/least-privilege.test.ts',
  'test/cli/serve.test.ts',
  'test/cli/round-trip.test.ts',
  'packages/sandbox/test/aws/deployment-apis.test.ts',
];

/**
 * Vitest's order (failed first, then longest or largest first), with the heaviest files ahead of all,
 * failed ones included. Being vitest's sequencer, it also takes the place of the one that shuffles
 * files: `--sequence.shuffle` still shuffles the tests within each file, not the files.
 */
export default class HeaviestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const at = HEAVIEST_FILES.indexOf(relative(this.ctx.config.root, file.moduleId).split('\\').join('/'));
      return at === -1 ? HEAVIEST_FILES.length : at;
    };
    // Array.prototype.sort is stable: files outside the list keep vitest's order among themselves.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
