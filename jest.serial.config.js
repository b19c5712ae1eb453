// Tests that measure time on a production process (`test/**/*.serial-spec.ts`): run after the
// parallel suites (`posttest`), one file at a time, so what they time is the server under test and
// not two other Jest workers booting apps on the same two cores.
const base = require('./jest.config.js');
const e2e = base.projects.find((p) => p.displayName === 'e2e');

module.exports = {
  testTimeout: 120_000,
  maxWorkers: 1,
  projects: [
    {
      ...e2e,
      displayName: 'serial',
      testMatch: ['<rootDir>/test/**/*.serial-spec.ts'],
      testPathIgnorePatterns: [],
    },
  ],
};
