// Runs in every worker of the embedded project before its suites (see env.ts).
process.env.NODE_ENV = 'test';
process.env.PARLEY_TEST_DATABASE_URL = process.env.PARLEY_EMBEDDED_DATABASE_URL;
process.env.PARLEY_TEST_DATABASE_KIND = process.env.PARLEY_EMBEDDED_DATABASE_KIND;
