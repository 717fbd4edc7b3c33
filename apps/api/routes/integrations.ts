import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { ProviderRequestError } from '../../../activities/providers/outcome';
import { storedMapping, verifyIntegration } from '../../../activities/providers/registry';
import type { SalesforceTokenStore } from '../../../activities/providers/crm/salesforce';
import { salesforceTokenLock } from '../../../activities/providers/crm/salesforce-token-store';
import { lockFor } from '../../../db/locks';
import {
  changeIntegration,
  deleteIntegration,
  getIntegration,
  insertIntegration,
  integrationSecret,
  listIntegrations,
  recordIntegrationTest,
  storeIntegrationSecret,
} from '../../../db/queries/integrations';
import { secretContext } from '../../../db/secrets';
import type { Tx } from '../../../db/tenancy';
import { asCaller, userOf, visibleOr404, withRecordRole, withRole } from '../access';
import { ProblemError, validationFailed } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations, providerSettingIssues } from './integrations.schemas';
import type { IntegrationProviderKey } from '../../../activities/providers/registry';
import { pathId } from '../validate';

/** Integrations hold credentials: owners and admins manage them; the secret is write-only. */
export function integrationRoutes({ db, secrets, salesforce }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const loader = (id: string) => ({ what: 'integration', load: (tx: Tx) => getIntegration(tx, id) });
  const box = () => {
    if (!secrets) throw new ProblemError('SERVICE_UNAVAILABLE', 'Integrations are not available: INTEGRATION_SECRET_KEY is not configured');
    return secrets;
  };

  serve('createIntegration', async (req, res, call) => {
    const body = call.body;
    const sealer = box();
    const integration = await withRole(db, req, body.organizationId, call.role, async (tx) => {
      const id = randomUUID();
      return insertIntegration(tx, {
        id,
        organizationId: body.organizationId,
        providerKey: body.providerKey,
        kind: body.kind,
        config: body.config ?? {},
        mapping: storedMapping(body.providerKey, body.mapping ?? {}),
        secret: sealer.seal(body.secret, secretContext(body.organizationId, id)),
      });
    });
    res.status(201).json(integration);
  });

  serve('listIntegrations', async (req, res, call) => {
    const q = call.query;
    const rows = await withRole(db, req, q.organizationId, call.role, (tx) => listIntegrations(tx, q));
    res.json(rows);
  });

  serve('getIntegration', async (req, res) => {
    const id = pathId(req, 'integrationId', 'integration');
    res.json(await visibleOr404(db, req, 'integration', (tx) => getIntegration(tx, id)));
  });

  serve('updateIntegration', async (req, res, call) => {
    const id = pathId(req, 'integrationId', 'integration');
    const body = call.body;
    const updated = await withRecordRole(db, req, loader(id), call.role, async (tx, found) => {
      const providerKey = found.provider_key as IntegrationProviderKey;
      const issues = providerSettingIssues(providerKey, { config: body.config, mapping: body.mapping });
      // The secret goes where the config points: a new destination without the secret again would send
      // a key someone else entered to a host of the caller's choosing.
      if (body.config !== undefined && body.secret === undefined && destinationChanged(found.config, body.config))
        issues.push({ path: ['secret'], message: 'a changed URL needs the secret again' });
      if (issues.length) throw validationFailed(issues.map((i) => ({ path: `body.${i.path.join('.')}`, message: i.message })));
      // A Salesforce refresh token is replaced under the lock its rotation takes, so a sync in flight cannot store the old one over it.
      if (body.secret !== undefined && providerKey === 'salesforce') await lockFor(tx, salesforceTokenLock(id));
      return changeIntegration(tx, found, userOf(req), {
        config: body.config,
        mapping: body.mapping === undefined ? undefined : storedMapping(providerKey, body.mapping),
        sealedSecret: body.secret === undefined ? undefined : box().seal(body.secret, secretContext(found.organization_id, id)),
      });
    });
    res.json(updated);
  });

  serve('deleteIntegration', async (req, res, call) => {
    const id = pathId(req, 'integrationId', 'integration');
    await withRecordRole(db, req, loader(id), call.role, (tx, found) => deleteIntegration(tx, found, userOf(req)));
    res.status(204).end();
  });

  /** Checks the stored secret against the provider; status becomes connected, or error with the provider's message. */
  serve('testIntegration', async (req, res, call) => {
    const id = pathId(req, 'integrationId', 'integration');
    void call.body;
    const sealer = box();
    // The sealed secret the check uses: its outcome is recorded only if the row still holds it (and the
    // config checked), so a check of a revoked key cannot mark the key that replaced it meanwhile.
    let sealedUsed: Buffer;
    const { integration, secret } = await withRecordRole(db, req, loader(id), call.role, async (tx, found) => {
      const row = await integrationSecret(tx, id);
      sealedUsed = row!.secret_ciphertext!;
      return { integration: found, secret: sealer.open(sealedUsed, secretContext(found.organization_id, id)) };
    });
    // A Salesforce check spends the refresh token like a sync: under the same lock, a rotated one stored (as the caller).
    const salesforceTokens: SalesforceTokenStore = {
      withRefreshToken: (fn) =>
        withRecordRole(db, req, loader(id), call.role, async (tx, found) => {
          await lockFor(tx, salesforceTokenLock(id));
          const row = await integrationSecret(tx, id);
          const context = secretContext(found.organization_id, id);
          sealedUsed = row!.secret_ciphertext!;
          return fn(sealer.open(sealedUsed, context), async (rotated) => {
            const sealed = sealer.seal(rotated, context);
            await storeIntegrationSecret(tx, id, sealed);
            sealedUsed = sealed;
          });
        }),
    };
    const outcome = await verifyIntegration(
      integration.provider_key,
      integration.config as Record<string, unknown>,
      secret,
      { salesforce },
      salesforceTokens,
    ).catch((err: unknown) => {
      // An answer past the size limit is the configured base URL's fault: a 4xx naming it, and nothing recorded.
      if (err instanceof ProviderRequestError && err.tooLarge) {
        throw new ProblemError('VALIDATION_FAILED', `The provider's answer is too large: ${err.message}`, {
          errors: [{ path: 'config.baseUrl', message: err.message }],
        });
      }
      throw err;
    });
    const updated = await asCaller(db, req, (tx) =>
      recordIntegrationTest(tx, id, outcome.ok ? { ok: true } : { ok: false, message: outcome.message }, {
        config: integration.config,
        sealedSecret: sealedUsed,
      }),
    );
    if (!updated) {
      await visibleOr404(db, req, 'integration', (tx) => getIntegration(tx, id));
      throw new ProblemError('CONFLICT', 'The integration was changed while it was being tested: test it again');
    }
    res.json(updated);
  });

  return r;
}

/** Whether a config change moves a URL the provider is called at (baseUrl, instanceUrl, …: the keys ending in Url). */
function destinationChanged(current: unknown, next: Record<string, unknown>): boolean {
  const before = (current ?? {}) as Record<string, unknown>;
  const keys = new Set([...Object.keys(before), ...Object.keys(next)].filter((k) => /url$/i.test(k)));
  return [...keys].some((k) => JSON.stringify(before[k] ?? null) !== JSON.stringify(next[k] ?? null));
}
