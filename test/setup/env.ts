// Runs in every test worker before the suites.
process.env.NODE_ENV = 'test';
