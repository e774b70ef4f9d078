import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // three files at once on two cores: a file spends part of its time waiting (for a
    // server it stopped, a workflow, a timer), and two left the cores idle 15% of a run;
    // the tests that load the whole machine run alone after the rest (*.alone.test.ts)
    maxWorkers: 3,
    minWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
  },
});
