// Three projects: `unit` (pure logic beside the code), `e2e` (the real app over HTTP on real
// PostgreSQL: TEST_DATABASE_URL when given, otherwise the embedded database) and `embedded`
// (a smoke suite that always runs on the embedded database).
const tsJest = [
  'ts-jest',
  {
    tsconfig: 'tsconfig.json',
    isolatedModules: false,
    diagnostics: { warnOnly: false },
    // Apply the @nestjs/swagger CLI plugin in tests too, so Swagger schemas match the build.
    astTransformers: { before: ['<rootDir>/test/setup/swagger-plugin-transformer.js'] },
  },
];

// openid-client and its dependencies are ESM-only. Node 20.19+ and 24 `require()` them natively
// (the build does), but Jest's module system does that only on Node 24.9+ with
// --experimental-vm-modules: on Node 20 Jest compiles these three packages to CommonJS.
const ESM_ONLY = ['openid-client', 'oauth4webapi', 'jose'];
const esmToCjs = [
  'ts-jest',
  { tsconfig: { allowJs: true, isolatedModules: true, module: 'commonjs', target: 'ES2022' } },
];

const common = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: {
    '^.+\\.ts$': tsJest,
    [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: esmToCjs,
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  testEnvironment: 'node',
  rootDir: __dirname,
};

module.exports = {
  // testTimeout is a global option (ignored inside projects): e2e suites boot real apps.
  testTimeout: 60_000,
  // The e2e suites mostly wait on the database and timers: on a 2-core machine two workers run
  // them about 25 % faster than Jest's default of (cores - 1).
  maxWorkers: Math.max(2, require('node:os').cpus().length - 1),
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: ['<rootDir>/test/embedded/'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
      setupFiles: ['<rootDir>/test/setup/env.ts'],
      testTimeout: 60_000,
    },
    {
      ...common,
      displayName: 'embedded',
      testMatch: ['<rootDir>/test/embedded/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup-embedded.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
      setupFiles: ['<rootDir>/test/setup/env-embedded.ts'],
      testTimeout: 60_000,
    },
  ],
};
