// Runs in every e2e test worker before the suites.
process.env.NODE_ENV = 'test';
// Every project's global set-up runs in Jest's main process before any worker starts, and the
// workers inherit all of their variables: each project reads its own database here.
process.env.PARLEY_TEST_DATABASE_URL = process.env.PARLEY_E2E_DATABASE_URL;
process.env.PARLEY_TEST_DATABASE_KIND = process.env.PARLEY_E2E_DATABASE_KIND;
