/**
 * The pure tests alone (`npm run test:unit`): domain rules, parsing and shapes, with no PostgreSQL,
 * Temporal or worker. Everything in test/unit must pass without the stack (the full suite runs them too).
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/unit'],
  globalSetup: undefined,
  globalTeardown: undefined,
  testTimeout: 10000,
};
