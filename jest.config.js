/** @type {import('jest').Config} */
const swc = ['@swc/jest', { swcrc: true }];
const moduleNameMapper = {
  '^@engram/(config|db|memory|llm|services|jobs|embeddings|queues|metrics)$': '<rootDir>/libs/$1/src',
};

module.exports = {
  // Medium tests boot apps and databases; a busy 2-core CI machine needs more than 5 s.
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': swc },
      moduleNameMapper,
      testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/scripts/**/*.spec.ts', '<rootDir>/bench/**/*.spec.ts'],
    },
    {
      // Medium tests: the real PostgreSQL (+pgvector), Redis and embedded PGlite.
      displayName: 'medium',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': swc },
      moduleNameMapper,
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
