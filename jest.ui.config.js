// The browser suite (`npm run test:ui`): Swagger UI in headless Chromium (/usr/bin/chromium,
// driven by playwright-core) against the real app on real PostgreSQL. Kept out of jest.config.js
// so that `npm test` runs without a browser.
const base = require('./jest.config.js');
const e2e = base.projects.find((p) => p.displayName === 'e2e');

module.exports = {
  testTimeout: 120_000,
  projects: [
    {
      ...e2e,
      displayName: 'ui',
      testMatch: ['<rootDir>/test/ui/**/*.ui-spec.ts'],
      testPathIgnorePatterns: [],
    },
  ],
};
