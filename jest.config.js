/** Jest: one process (--runInBand) so one Temporal server, one worker process and one database serve the run. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Files that need the production Temporal Server run only with TEMPORAL_MODE=server (npm run test:server).
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.TEMPORAL_MODE === 'server' ? [] : ['<rootDir>/test/platform/temporal-server.test.ts'])],
  transform: {
    '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  // jose is ESM-only; let swc turn it into CommonJS for Jest's module system.
  transformIgnorePatterns: ['/node_modules/(?!(jose|oauth4webapi)/)'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  testTimeout: 60000,
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.js'],
};
