import express, { Express, RequestHandler, Router } from 'express';
import { poolOf } from '../../db/pool';
import { authenticate } from './auth';
import { idempotentPosts, sealIdempotentAnswersWith } from './idempotency';
import { apiKeyIdentity } from '../../db/queries/api-keys';
import { apiKeyRoutes } from './routes/api-keys';
import { webhookEndpointRoutes } from './routes/webhook-endpoints';
import { errorHandler, sendProblem } from './errors';
import { ApiMetrics } from './metrics';
import { openApiDocument } from './openapi';
import { bind } from './bind';
import * as docs from './routes/docs.schemas';
import * as health from './routes/health.schemas';
import { limitPerOrganization, limitPerAddress, limitPerUser } from './rate-limit';
import { rejectUnsafeInput } from './validate';
import { requestLog } from './request-log';
import { dispatchByFirstSegment } from './route-dispatch';
import { docsRoutes } from './routes/docs';
import { healthRoutes } from './routes/health';
import { unsubscribeRoutes } from './routes/unsubscribe';
import { webhookRoutes } from './routes/webhooks';
import { meetingRoutes } from './routes/meetings';
import { taskRoutes } from './routes/tasks';
import { companyRoutes } from './routes/companies';
import { complianceRoutes } from './routes/compliance';
import { contactRoutes } from './routes/contacts';
import { integrationRoutes } from './routes/integrations';
import { mailboxRoutes } from './routes/mailboxes';
import { mailboxOAuthCallbackRoutes, mailboxOAuthStartRoutes } from './routes/mailbox-oauth';
import type { ApiDeps } from './deps';
import { domainRoutes } from './routes/domains';
import { mcpRoutes } from './routes/mcp';
import { opportunityRoutes } from './routes/opportunities';
import { organizationRoutes } from './routes/organizations';
import { settingsRoutes } from './routes/settings';
import { signalRoutes } from './routes/signals';
import { sourceRoutes } from './routes/sources';
import { campaignRoutes } from './routes/campaigns';
import { enrollmentRoutes } from './routes/enrollments';
import { messageRoutes } from './routes/messages';
import { analyticsRoutes } from './routes/analytics';
import { inboundRoutes } from './routes/inbound';
import { importRoutes } from './routes/imports';
import { threadRoutes } from './routes/threads';
import { variantRoutes } from './routes/variants';

export type { ApiDeps } from './deps';

/** Bodies are JSON: a body of any other type is 415, whatever the route. */
const requireJsonBody: RequestHandler = (req, res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is('application/json')) {
    return sendProblem(res, 'UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be application/json');
  }
  next();
};

export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  sealIdempotentAnswersWith(deps.db, deps.secrets);
  app.set('trust proxy', false);
  const metrics = deps.metrics ?? new ApiMetrics({ pool: poolOf(deps.db) });
  app.use(metrics.middleware());
  app.use(requestLog(deps.logger));
  // Public, before authentication and the JSON-only body rule, each request to the routers of its first
  // segment (route-dispatch.ts): health, the one-click unsubscribe (RFC 8058), the mailbox consent's
  // callback, booking webhooks (verified by their signature on the raw body, routes/webhooks.ts), the
  // metrics, this API's document and its reference page. The public routes take no token: their
  // allowance is the client address's (RATE_LIMIT_PUBLIC_PER_MINUTE).
  const publicLimits = Router();
  if (deps.rateLimits) publicLimits.use(['/webhooks', '/u'], limitPerAddress(deps.rateLimits));
  const reference = Router();
  bind(reference, health.operations)('getMetrics', metrics.handler(deps.metricsAccess ?? { public: false }));
  bind(reference, docs.operations)('getOpenApiDocument', (_req, res) => {
    res.json(openApiDocument());
  });
  app.use(
    dispatchByFirstSegment([
      healthRoutes(deps),
      publicLimits,
      unsubscribeRoutes(deps),
      mailboxOAuthCallbackRoutes(deps),
      webhookRoutes(deps),
      reference,
      docsRoutes(),
    ]),
  );
  // Bearer JWTs, and API keys (osk_...) acting as their own membership.
  app.use(authenticate(deps.verifyToken, deps.issuer, (hash) => apiKeyIdentity(deps.db, hash)));
  if (deps.rateLimits) app.use(limitPerUser(deps.rateLimits));
  // Before the JSON body rule: a raw RFC 822 message (message/rfc822), not JSON; and a CSV file
  // (text/csv), streamed into the import's staging table.
  app.use(dispatchByFirstSegment([inboundRoutes(deps), importRoutes(deps)]));
  app.use(requireJsonBody);
  app.use(express.json({ limit: deps.bodyLimit, strict: true, type: 'application/json' }));
  app.use(rejectUnsafeInput);
  if (deps.rateLimits) app.use(limitPerOrganization(deps.rateLimits));
  // Idempotency-Key on every JSON POST (after the limits: a replay counts as a request).
  app.use(idempotentPosts(deps.db));
  // Each request goes to the routers with a route under its first segment, in this order (route-dispatch.ts).
  app.use(
    dispatchByFirstSegment([
      organizationRoutes(deps),
      sourceRoutes(deps),
      signalRoutes(deps),
      opportunityRoutes(deps),
      settingsRoutes(deps),
      companyRoutes(deps),
      contactRoutes(deps),
      complianceRoutes(deps),
      integrationRoutes(deps),
      campaignRoutes(deps),
      enrollmentRoutes(deps),
      messageRoutes(deps),
      threadRoutes(deps),
      variantRoutes(deps),
      mailboxOAuthStartRoutes(deps),
      mailboxRoutes(deps),
      meetingRoutes(deps),
      taskRoutes(deps),
      analyticsRoutes(deps),
      webhookEndpointRoutes(deps),
      apiKeyRoutes(deps),
      domainRoutes(deps),
      mcpRoutes(deps),
    ]),
  );
  app.use((req, res) => sendProblem(res, 'NOT_FOUND', `No route for ${req.method} ${req.path}`));
  app.use(errorHandler(deps.logger));
  return app;
}
