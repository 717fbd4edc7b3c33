import { allowPrivateDestinations } from '../../activities/providers/destination';
import { allowsPrivateNetworks, apiDatabaseUrl, ConfigError, loadAuthConfig, loadConfig, productionProblems, publicBaseUrl } from '../shared/config';
import { createLogger } from '../shared/logger';
import { SecretBox } from '../../db/secrets';
import { UnsubscribeTokens, unsubscribeTokenKey } from '../../domain/outreach/unsubscribe-token';
import { connectTemporal, WorkflowStarter } from '../shared/temporal';
import { createDb, poolOf } from '../../db/pool';
import { assertApiRole } from '../../db/roles';
import { createApp } from './app';
import { dnsResolverFrom } from '../../activities/providers/dns/resolver';
import { createTokenVerifier } from './auth';
import { oauthClientsFrom } from '../../activities/providers/mail/oauth';
import { salesforceAppFrom } from '../../activities/providers/registry';
import { listen } from './server';

async function main() {
  const config = loadConfig();
  const problems = productionProblems(config, 'api');
  if (problems.length) throw new ConfigError(`The API refuses to start:\n  ${problems.join('\n  ')}`);
  const auth = loadAuthConfig(config);
  allowPrivateDestinations(allowsPrivateNetworks(config)); // integration checks call providers
  const logger = createLogger(config.LOG_LEVEL, 'api');
  const db = createDb(apiDatabaseUrl(config), config.DB_POOL_SIZE, { namedStatements: config.DB_NAMED_STATEMENTS === 'true' });
  await assertApiRole(db);
  const temporalClient = await connectTemporal(config);
  const unsubscribeKey = unsubscribeTokenKey(config);
  const app = createApp({
    db,
    logger,
    temporalClient,
    workflows: new WorkflowStarter(temporalClient, config),
    verifyToken: createTokenVerifier(auth),
    issuer: auth.issuer,
    bodyLimit: config.BODY_LIMIT,
    secrets: config.INTEGRATION_SECRET_KEY ? new SecretBox(config.INTEGRATION_SECRET_KEY, config.INTEGRATION_SECRET_KEYS) : null,
    // Counted in PostgreSQL, so every API process behind the balancer shares the limits.
    rateLimits: {
      userPerMinute: config.RATE_LIMIT_USER_PER_MINUTE,
      orgPerMinute: config.RATE_LIMIT_ORG_PER_MINUTE,
      publicPerMinute: config.RATE_LIMIT_PUBLIC_PER_MINUTE,
      store: poolOf(db),
    },
    metricsAccess: { token: config.METRICS_TOKEN, public: config.METRICS_PUBLIC === 'true' },
    unsubscribeTokens: unsubscribeKey ? new UnsubscribeTokens(unsubscribeKey) : null,
    dns: dnsResolverFrom(config),
    inbound: { maxBytes: config.INBOUND_MAX_BYTES, llm: config },
    imports: { idleTimeoutMs: config.IMPORT_IDLE_TIMEOUT_MS },
    oauth: { clients: oauthClientsFrom(config), redirectUri: `${publicBaseUrl(config)}/mailboxes/oauth/callback` },
    salesforce: salesforceAppFrom(config),
  });
  const http = await listen(app, config.PORT, config.HOST);
  logger.info({ url: http.url, startup_ms: Math.round(performance.now()) }, 'api listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'api stopping: finishing in-flight requests');
    await http.close();
    await temporalClient.connection.close();
    await db.destroy();
    logger.info('api stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
