import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BrowserContext, chromium, Page } from 'playwright-core';
import { OPERATIONS } from '../../apps/api/openapi';
import { DOCS_CSP } from '../../apps/api/routes/docs';
import { newOrganization, startApi, TestApi } from '../helpers/api';
import { apiClient, ok } from '../helpers/client';
import { newUser } from '../helpers/tokens';

/**
 * GET /docs in a real browser: Debian's chromium, headless, through playwright-core (.ci/run installs
 * it when missing). The page must render every operation of the document, load nothing from another
 * origin, break no rule of its Content-Security-Policy, and send a request with the bearer token
 * given to "Authorize". With DOCS_SCREENSHOT=1 it also writes docs/api-docs.png (shown in docs/api-clients.md).
 */
const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let api: TestApi;
let profile: string;
let browser: BrowserContext;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get update && apt-get install -y chromium (.ci/run does this)`);
  api = await startApi();
  profile = await mkdtemp(path.join(os.tmpdir(), 'docs-chromium-')); // an empty --user-data-dir
  browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 } });
});
afterAll(async () => {
  await browser?.close();
  await rm(profile, { recursive: true, force: true });
  await api.close();
});

/** Opens /docs and records what the page asked for and complained about. */
async function openDocs(): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await browser.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${api.url}/docs`);
  await page.waitForSelector('.opblock', { timeout: 30_000 });
  return { page, requests, errors };
}

test('GET /docs answers the page with a Content-Security-Policy that allows only this origin, and its assets from the package', async () => {
  const res = await api.call('GET', '/docs');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('content-security-policy')).toBe(DOCS_CSP);
  expect(DOCS_CSP).not.toMatch(/https?:|\*|unsafe-/);
  expect(DOCS_CSP).toContain("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'");
  expect(res.body).not.toMatch(/https?:\/\//); // no CDN
  expect(res.body).not.toMatch(/<script>|<style>| on\w+=/); // nothing inline
  for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'init.js']) {
    const file = await fetch(`${api.url}/docs/${asset}`);
    expect([asset, file.status, file.headers.get('content-security-policy')]).toEqual([asset, 200, DOCS_CSP]);
  }
  expect((await fetch(`${api.url}/docs/swagger-initializer.js`)).status).toBe(404);
});

test('the rendered reference lists every operation, loads nothing from elsewhere and breaks no CSP rule', async () => {
  const { page, requests, errors } = await openDocs();
  // Browser-side code as strings: the project compiles without the DOM library.
  await page.waitForFunction(`document.querySelectorAll('.opblock').length >= ${OPERATIONS.length}`);
  const rendered = await page.$$eval('.opblock .opblock-summary-operation-id', (els) => els.map((e) => e.textContent?.trim() ?? ''));
  // Every operation of the served document, the events under `webhooks` (OpenAPI 3.1) too.
  const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as { webhooks: Record<string, Record<string, { operationId: string }>> };
  const webhookIds = Object.values(doc.webhooks).flatMap((item) => Object.values(item).map((op) => op.operationId));
  expect(webhookIds.length).toBeGreaterThanOrEqual(13);
  expect(rendered.sort()).toEqual([...OPERATIONS.map((o) => o.id), ...webhookIds].sort());

  // One operation opened: its request body and response schemas are shown.
  await page.click('#operations-Sources-createSource .opblock-summary-control');
  await page.waitForSelector('#operations-Sources-createSource .opblock-body');
  const body = await page.textContent('#operations-Sources-createSource .opblock-body');
  expect(body).toContain('providerKey');
  expect(body).toMatch(/201[\s\S]*400[\s\S]*401/);

  if (process.env.DOCS_SCREENSHOT) {
    await page.click('#operations-Sources-createSource .opblock-summary-control'); // closed again, for the overview
    await page.evaluate('document.activeElement?.blur(); window.scrollTo(0, 0)');
    await page.screenshot({ path: path.resolve(__dirname, '../../docs/api-docs.png'), clip: { x: 0, y: 0, width: 1280, height: 1000 }, fullPage: true });
  }
  expect(requests.filter((u) => !u.startsWith(api.url))).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
});

test('"Authorize" takes a bearer token and "Try it out" sends it: the caller sees its organization', async () => {
  const user = await newUser();
  const { orgId } = await newOrganization(api, 'Docs Try-Out B.V.').then(async ({ owner, orgId: id }) => {
    // The organization belongs to `user`, added as a viewer through the typed client.
    ok(
      await apiClient(api.url, owner.token).POST('/organizations/{organizationId}/members', {
        params: { path: { organizationId: id } },
        body: { userId: user.id, role: 'viewer' },
      }),
    );
    return { orgId: id };
  });
  const { page, errors } = await openDocs();
  await page.click('.auth-wrapper .authorize');
  await page.fill('.modal-ux input[type=text], .modal-ux input:not([type])', user.token);
  await page.click('.modal-ux .auth-btn-wrapper .authorize');
  await page.click('.modal-ux .close-modal');

  const op = '#operations-Organizations-listOrganizations';
  await page.click(`${op} .opblock-summary-control`);
  await page.click(`${op} .try-out__btn`);
  await page.click(`${op} .execute`);
  await page.waitForSelector(`${op} .live-responses-table .response-col_status`);
  const status = await page.textContent(`${op} .live-responses-table .response .response-col_status`);
  expect(status?.trim()).toBe('200');
  const answer = await page.textContent(`${op} .live-responses-table .response-col_description pre`);
  expect(answer).toContain(orgId);
  expect(answer).toContain('Docs Try-Out B.V.');
  expect(errors).toEqual([]);
  await page.close();
});
