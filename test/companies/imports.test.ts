import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { WorkflowStarter } from '../../apps/shared/temporal';
import { createImportActivities } from '../../activities/imports';
import { createDb } from '../../db/pool';
import { addMember, expectProblem, newOrganization, startApi, TestApi } from '../helpers/api';
import { until } from '../helpers/outreach';
import { newUser, testEnv, TestUser } from '../helpers/tokens';
import { startWorkerProcess, workerEnv } from '../helpers/worker-process';
import { useStack } from '../helpers/stack';
import { resultWithin } from '../helpers/workflow-result';

/**
 * Contact import: a CSV file through POST /imports, imported by the durable run
 * `import/<id>` in chunks by the real workers, every row through the checks of the single-record
 * endpoints; a worker SIGKILLed half-way leaves every row imported exactly once.
 */
const { api, owners } = useStack({ api: true, owners: true });
const workers: ChildProcess[] = [];
afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
});

const importCsv = (a: TestApi, token: string, orgId: string, csv: string, query = '') =>
  a.call('POST', `/imports?organizationId=${orgId}&sourceDescription=${encodeURIComponent('Beursbezoekers Bouwbeurs 2026')}${query}`, {
    token,
    rawBody: csv,
    headers: { 'content-type': 'text/csv; charset=utf-8' },
  });

async function finished(a: TestApi, token: string, id: string, timeoutMs = 120_000) {
  return until(
    'the import to finish',
    async () => {
      const got = await a.call('GET', `/imports/${id}`, { token });
      return got.body.status !== 'running' ? got.body : undefined;
    },
    timeoutMs,
  );
}

const countBy = <T>(items: T[], key: (t: T) => string) => items.reduce<Record<string, number>>((acc, t) => ((acc[key(t)] = (acc[key(t)] ?? 0) + 1), acc), {});

test('2,000 rows with a BOM, `;`, quoted fields, duplicates, a suppressed and an erased address, bad e-mails, a company under two spellings: exactly the expected counts', async () => {
  const { owner, orgId } = await newOrganization(api, 'Import B.V.');
  const post = (path: string, body: unknown) => api.call('POST', path, { token: owner.token, body });
  // Already there: company Bedrijf 1 with a contact (updated by the import) and an erased one.
  const bedrijf1 = (await post('/companies', { organizationId: orgId, name: 'Bedrijf 1 B.V.', domain: 'bedrijf1.nl' })).body;
  const existing = (await post('/contacts', { organizationId: orgId, companyId: bedrijf1.id, fullName: 'Bestaande Klant', email: 'bestaand@bedrijf1.nl' }))
    .body;
  const erased = (await post('/contacts', { organizationId: orgId, companyId: bedrijf1.id, fullName: 'Vergeten Persoon', email: 'vergeten@elders.nl' })).body;
  expect((await api.call('DELETE', `/contacts/${erased.id}`, { token: owner.token })).status).toBe(200);
  expect((await post('/compliance/suppressions', { organizationId: orgId, scope: 'email', value: 'geblokkeerd@elders.nl', reason: 'objection' })).status).toBe(
    201,
  );

  const lines = ['full_name;Email;title;company;domain;kvk_number;notes'];
  const row = (cells: string[]) => lines.push(cells.join(';'));
  for (let i = 0; i < 1975; i++) {
    const k = i % 40;
    // The same company under two spellings (and its domain); quoted titles with the separator and quotes inside.
    const company = i % 2 === 0 ? `Bedrijf ${k} B.V.` : `"bedrijf ${k} bv"`;
    const title = i === 7 ? '"Directeur; eigenaar"' : i === 8 ? '"Hoofd ""Inkoop"""' : 'Projectleider';
    row([`Persoon ${i}`, `p${i}@bedrijf${k}.nl`, title, company, `bedrijf${k}.nl`, '', 'x']);
  }
  for (let i = 0; i < 10; i++) row([`Dubbel ${i}`, `P${i}@BEDRIJF${i % 40}.NL`, '', `Bedrijf ${i % 40} B.V.`, `bedrijf${i % 40}.nl`, '', '']);
  row(['Geblokkeerd Persoon', 'geblokkeerd@elders.nl', '', 'Elders BV', 'elders.nl', '', '']);
  row(['Vergeten Persoon', 'vergeten@elders.nl', '', 'Elders BV', 'elders.nl', '', '']);
  for (const bad of ['geen-adres', 'a@b', 'x@@y.nl', 'iemand@', '@nieuw.nl']) row(['Foute Mail', bad, '', 'Nieuw BV', 'nieuw.nl', '', '']);
  for (let j = 0; j < 3; j++) row(['', `leeg${j}@nieuw.nl`, '', 'Nieuw BV', 'nieuw.nl', '', '']);
  for (let j = 0; j < 2; j++) row([`Kvk Fout ${j}`, `kvk${j}@nieuw.nl`, '', 'Nieuw BV', 'nieuw.nl', '123', '']);
  // No domain: the two spellings meet by normalized name.
  row(['Jan van Dam', 'jan@vandam-zonen.nl', '', '"Van Dam & Zonen B.V."', '', '', '']);
  row(['Piet van Dam', 'piet@vandam-zonen.nl', '', 'van Dam en Zonen', '', '', '']);
  row(['Bestaande Klant', 'Bestaand@bedrijf1.nl', 'Inkoper', 'Bedrijf 1 B.V.', 'bedrijf1.nl', '', '']);
  expect(lines.length - 1).toBe(2000);
  const csv = `\uFEFF${lines.join('\r\n')}\r\n`;

  const accepted = await importCsv(api, owner.token, orgId, csv);
  expect(accepted.status).toBe(202);
  expect(accepted.body).toMatchObject({
    status: 'running',
    total_rows: 2000,
    organization_id: orgId,
    workflow_id: `import/${accepted.body.id}`,
    created_by: owner.id,
  });
  const done = await finished(api, owner.token, accepted.body.id);

  expect(done).toMatchObject({
    status: 'completed',
    total_rows: 2000,
    processed_rows: 2000,
    created_contacts: 1977,
    updated_contacts: 1,
    created_companies: 40,
  });
  expect(countBy(done.skipped, (s: { reason: string }) => s.reason)).toEqual({
    duplicate_in_file: 10,
    suppressed: 1,
    erased: 1,
    invalid_email: 5,
    missing_name: 3,
  });
  // Rows as a person counts them: the header is row 1.
  expect(done.skipped.find((s: { reason: string }) => s.reason === 'suppressed').row).toBe(1 + 1975 + 10 + 1);
  expect(done.errors).toEqual([
    { row: 1, field: 'notes', message: 'is not a known column: ignored' },
    { row: 1 + 1975 + 10 + 2 + 5 + 3 + 1, field: 'kvk_number', message: 'must be a KvK number of 8 digits' },
    { row: 1 + 1975 + 10 + 2 + 5 + 3 + 2, field: 'kvk_number', message: 'must be a KvK number of 8 digits' },
  ]);

  const q = async (text: string) => (await owners.query(text, [orgId])).rows;
  expect(await q('SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1')).toEqual([{ n: 1977 + 2 }]);
  expect(await q('SELECT count(*)::int AS n FROM companies WHERE organization_id = $1')).toEqual([{ n: 41 }]);
  const vanDam = await q(`SELECT DISTINCT company_id FROM contacts WHERE organization_id = $1 AND email LIKE '%@vandam-zonen.nl'`);
  expect(vanDam).toHaveLength(1);
  expect(await q(`SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1 AND email LIKE '%@elders.nl'`)).toEqual([{ n: 0 }]);
  expect(await q(`SELECT count(*)::int AS n FROM import_rows WHERE organization_id = $1`)).toEqual([{ n: 0 }]);
  const titles = await q(
    `SELECT email, title, source_description, data_source FROM contacts WHERE organization_id = $1 AND email IN ('p7@bedrijf7.nl', 'p8@bedrijf8.nl') ORDER BY email`,
  );
  expect(titles).toEqual([
    { email: 'p7@bedrijf7.nl', title: 'Directeur; eigenaar', source_description: 'Beursbezoekers Bouwbeurs 2026', data_source: 'import' },
    { email: 'p8@bedrijf8.nl', title: 'Hoofd "Inkoop"', source_description: 'Beursbezoekers Bouwbeurs 2026', data_source: 'import' },
  ]);
  // The existing contact gained the title it lacked; imported contacts have no lawful basis yet.
  expect((await api.call('GET', `/contacts/${existing.id}`, { token: owner.token })).body).toMatchObject({ title: 'Inkoper', lawful_basis: null });
  const imported = await q(`SELECT id FROM contacts WHERE organization_id = $1 AND email = 'p1@bedrijf1.nl'`);
  expect((await api.call('GET', `/contacts/${imported[0].id}`, { token: owner.token })).body).toMatchObject({ lawful_basis: null, company_id: bedrijf1.id });

  const list = await api.call('GET', `/imports?organizationId=${orgId}`, { token: owner.token });
  expect(list.body.map((i: { id: string }) => i.id)).toEqual([accepted.body.id]);
}, 240_000);

test('a row skipped because its person was erased takes no address from a later row: the later row with that address is imported', async () => {
  const { owner, orgId } = await newOrganization(api, 'Import Gewist B.V.');
  const post = (path: string, body: unknown) => api.call('POST', path, { token: owner.token, body });
  const bedrijfX = (await post('/companies', { organizationId: orgId, name: 'Bedrijf X B.V.', domain: 'bedrijfx.nl' })).body;
  const wis = (await post('/contacts', { organizationId: orgId, companyId: bedrijfX.id, fullName: 'Wis Mij' })).body;
  expect((await api.call('DELETE', `/contacts/${wis.id}`, { token: owner.token })).status).toBe(200);
  const csv = [
    'full_name,email,company,domain',
    'Wis Mij,gedeeld@adres.nl,Bedrijf X,bedrijfx.nl', // erased by name within the company
    'Ander Persoon,gedeeld@adres.nl,Ander BV,ander.nl', // the same address, someone else: imported
  ].join('\n');
  const accepted = await importCsv(api, owner.token, orgId, csv);
  expect(accepted.status).toBe(202);
  expect(await finished(api, owner.token, accepted.body.id)).toMatchObject({
    status: 'completed',
    created_contacts: 1,
    skipped: [{ row: 2, reason: 'erased' }],
  });
  const rows = (await owners.query('SELECT full_name, email FROM contacts WHERE organization_id = $1 AND erased_at IS NULL', [orgId])).rows;
  expect(rows).toEqual([{ full_name: 'Ander Persoon', email: 'gedeeld@adres.nl' }]);
});

test('contacts are matched by e-mail only: a known name with a new address (or none) is a new contact, a known address gains the fields it lacked; a company by KvK number, a person erased by name stays out', async () => {
  const { owner, orgId } = await newOrganization(api, 'Import Matching B.V.');
  const post = (path: string, body: unknown) => api.call('POST', path, { token: owner.token, body });
  const bedrijfX = (await post('/companies', { organizationId: orgId, name: 'Bedrijf X B.V.', domain: 'bedrijfx.nl' })).body;
  const byKvk = (await post('/companies', { organizationId: orgId, name: 'Kvk Holding B.V.', kvkNumber: '12345678' })).body;
  const anna = (await post('/contacts', { organizationId: orgId, companyId: bedrijfX.id, fullName: 'Anna Naam' })).body;
  const bob = (await post('/contacts', { organizationId: orgId, companyId: bedrijfX.id, fullName: 'Bob Bekend', email: 'bob@bedrijfx.nl' })).body;
  const wis = (await post('/contacts', { organizationId: orgId, companyId: bedrijfX.id, fullName: 'Wis Mij' })).body;
  expect((await api.call('DELETE', `/contacts/${wis.id}`, { token: owner.token })).status).toBe(200);
  const csv = [
    'full_name,email,title,phone,company,domain,kvk_number',
    'Anna Naam,anna@bedrijfx.nl,Inkoper,,Bedrijf X,bedrijfx.nl,', // a known name, a new address: a new contact; the existing Anna is left as she is
    'Robert Bekend,BOB@bedrijfx.nl,Directeur,,Bedrijf X,bedrijfx.nl,', // a known address: Bob gains the title he lacked, his name stays
    'Kvk Persoon,kvk@ander.nl,,,Een Heel Andere Naam,,12345678', // its company found by KvK number
    'Nieuw Zonder Mail,,,,Vers BV,vers.nl,', // a new company and contact
    'nieuw zonder mail,,Monteur,+31 20 123 4567,Vers B.V.,vers.nl,', // no address, nothing to match by: another contact
    'WIS MIJ,,,,Bedrijf X,bedrijfx.nl,', // erased by name within the company
  ].join('\n');
  const accepted = await importCsv(api, owner.token, orgId, csv);
  expect(accepted.status).toBe(202);
  const done = await finished(api, owner.token, accepted.body.id);
  expect(done).toMatchObject({
    status: 'completed',
    created_contacts: 4,
    updated_contacts: 1,
    created_companies: 1,
    errors: [],
    skipped: [{ row: 7, reason: 'erased' }],
  });
  expect((await api.call('GET', `/contacts/${anna.id}`, { token: owner.token })).body).toMatchObject({ full_name: 'Anna Naam', email: null, title: null });
  expect((await api.call('GET', `/contacts/${bob.id}`, { token: owner.token })).body).toMatchObject({
    full_name: 'Bob Bekend',
    email: 'bob@bedrijfx.nl',
    title: 'Directeur',
  });
  const rows = (
    await owners.query(
      'SELECT lower(full_name) AS name, company_id, title, phone, email FROM contacts WHERE organization_id = $1 AND erased_at IS NULL ORDER BY 1, 3 NULLS FIRST, 5 NULLS FIRST',
      [orgId],
    )
  ).rows;
  const vers = rows.find((r) => r.name === 'nieuw zonder mail')!.company_id;
  expect(rows).toEqual([
    { name: 'anna naam', company_id: bedrijfX.id, title: null, phone: null, email: null },
    { name: 'anna naam', company_id: bedrijfX.id, title: 'Inkoper', phone: null, email: 'anna@bedrijfx.nl' },
    { name: 'bob bekend', company_id: bedrijfX.id, title: 'Directeur', phone: null, email: 'bob@bedrijfx.nl' },
    { name: 'kvk persoon', company_id: byKvk.id, title: null, phone: null, email: 'kvk@ander.nl' },
    { name: 'nieuw zonder mail', company_id: vers, title: null, phone: null, email: null },
    { name: 'nieuw zonder mail', company_id: vers, title: 'Monteur', phone: '+31201234567', email: null },
  ]);
  // The new Anna came from the import: its source, no lawful basis yet (the existing Anna's is untouched).
  const imported = await owners.query(`SELECT source_description, data_source FROM contacts WHERE organization_id = $1 AND email = 'anna@bedrijfx.nl'`, [
    orgId,
  ]);
  expect(imported.rows).toEqual([{ source_description: 'Beursbezoekers Bouwbeurs 2026', data_source: 'import' }]);
}, 120_000);
test('duplicate_in_file only after a row with that address was imported (in the chunk or an earlier one): a refused row does not shadow its corrected repeat', async () => {
  const { owner, orgId } = await newOrganization(api, 'Import Dubbel B.V.');
  const rows = ['full_name,email,phone,company,domain'];
  rows.push('Anna Eerst,anna@dubbel.nl,geen nummer,Dubbel BV,dubbel.nl'); // n 0: refused (phone)
  rows.push('Bert Eerst,bert@dubbel.nl,geen nummer,Dubbel BV,dubbel.nl'); // n 1: refused (phone)
  rows.push('Bert Eerst,bert@dubbel.nl,,Dubbel BV,dubbel.nl'); // n 2: imported (same chunk, the refused row does not count)
  rows.push('Bert Eerst,BERT@dubbel.nl,,Dubbel BV,dubbel.nl'); // n 3: duplicate_in_file (n 2 was imported)
  rows.push('Cees Eerst,cees@dubbel.nl,,Dubbel BV,dubbel.nl'); // n 4: imported
  for (let i = 5; i < 500; i++) rows.push(`Vul ${i},vul${i}@dubbel.nl,,Dubbel BV,dubbel.nl`);
  rows.push('Anna Eerst,anna@dubbel.nl,,Dubbel BV,dubbel.nl'); // n 500 (second chunk): imported, n 0 was refused
  rows.push('Anna Eerst,anna@dubbel.nl,,Dubbel BV,dubbel.nl'); // n 501: duplicate_in_file (n 500, same chunk)
  rows.push('Cees Eerst,cees@dubbel.nl,,Dubbel BV,dubbel.nl'); // n 502: duplicate_in_file (n 4, an earlier chunk)
  const accepted = await importCsv(api, owner.token, orgId, rows.join('\n'));
  expect(accepted.status).toBe(202);
  const done = await finished(api, owner.token, accepted.body.id);
  expect(done).toMatchObject({ status: 'completed', created_contacts: 498, updated_contacts: 0 });
  expect(done.skipped).toEqual([
    { row: 5, reason: 'duplicate_in_file' },
    { row: 503, reason: 'duplicate_in_file' },
    { row: 504, reason: 'duplicate_in_file' },
  ]);
  expect(done.errors.map((e: { row: number }) => e.row)).toEqual([2, 3]);
  const { rows: people } = await owners.query(
    `SELECT email FROM contacts WHERE organization_id = $1 AND email IN ('anna@dubbel.nl', 'bert@dubbel.nl', 'cees@dubbel.nl') ORDER BY 1`,
    [orgId],
  );
  expect(people.map((p) => p.email)).toEqual(['anna@dubbel.nl', 'bert@dubbel.nl', 'cees@dubbel.nl']);
}, 120_000);

test("a row whose company's domain, site or KvK number is suppressed is skipped as suppressed, and no company is made for it; it does not take its address from a later row", async () => {
  const { owner, orgId } = await newOrganization(api, 'Import Onderdrukt B.V.');
  const post = (path: string, body: unknown) => api.call('POST', path, { token: owner.token, body });
  const known = (await post('/companies', { organizationId: orgId, name: 'Bekend Bouw B.V.', domain: 'bekendbouw.nl' })).body;
  for (const [scope, value] of [
    ['domain', 'geblokkeerd.nl'],
    ['kvk_number', '87654321'],
    ['domain', 'bekendbouw.nl'],
    ['domain', 'site-weg.nl'],
  ]) {
    expect((await post('/compliance/suppressions', { organizationId: orgId, scope, value, reason: 'objection' })).status).toBe(201);
  }
  const csv = [
    'full_name,email,company,domain,website,kvk_number',
    'Dora Domein,dora@elders.nl,Geblokkeerd BV,geblokkeerd.nl,,', // the row's domain
    'Karel Kvk,karel@elders.nl,Kvk Geblokkeerd BV,,,87654321', // the row's KvK number
    'Bea Bekend,bea@gmail.com,Bekend Bouw,,,', // the company found by name, whose domain is suppressed
    'Siem Site,siem@gmail.com,Site Weg BV,,https://www.site-weg.nl/contact,', // the site's domain
    'Olga Open,olga@open.nl,Open BV,open.nl,,', // nothing suppressed
    'Dora Domein,dora@elders.nl,Nieuw Werk BV,nieuwwerk.nl,,', // the first row's address, at a company not suppressed: imported, no duplicate
  ].join('\n');
  const accepted = await importCsv(api, owner.token, orgId, csv);
  expect(accepted.status).toBe(202);
  const done = await finished(api, owner.token, accepted.body.id);
  expect(done).toMatchObject({ status: 'completed', created_contacts: 2, created_companies: 2, errors: [] });
  expect(done.skipped).toEqual([2, 3, 4, 5].map((row) => ({ row, reason: 'suppressed' })));
  const { rows } = await owners.query('SELECT name FROM companies WHERE organization_id = $1 ORDER BY name', [orgId]);
  expect(rows.map((r) => r.name)).toEqual([known.name, 'Nieuw Werk BV', 'Open BV']);
}, 120_000);

test('a header of more than 1,000 unknown columns: accepted, the first 1,000 listed in errors', async () => {
  const { owner, orgId } = await newOrganization(api, 'Import Kolommen B.V.');
  const extra = Array.from({ length: 1001 }, (_, i) => `extra_${i}`);
  const csv = `${['full_name', 'email', 'company', ...extra].join(',')}\nAnna de Vries,anna@kolommen.nl,Kolommen BV${',x'.repeat(1001)}\n`;
  const accepted = await importCsv(api, owner.token, orgId, csv);
  expect(accepted.status).toBe(202);
  expect(accepted.body.errors).toHaveLength(1000);
  expect(accepted.body.errors[999]).toEqual({ row: 1, field: 'extra_999', message: 'is not a known column: ignored' });
  expect(await finished(api, owner.token, accepted.body.id)).toMatchObject({ status: 'completed', created_contacts: 1 });
});

test('a run that gives up with a full errors list still says why: the reason takes the last place', async () => {
  // An API whose runs no worker takes: the import stays running until the activity below fails it.
  const own = await startApi({
    workflows: new WorkflowStarter(api.temporal, { TEMPORAL_TASK_QUEUE: `idle-${randomUUID()}`, INGEST_RETRY_INITIAL_INTERVAL_MS: 200 }),
  });
  const workerDb = createDb(testEnv('TEST_WORKER_DB_URL'), 1);
  try {
    const { owner, orgId } = await newOrganization(own, 'Import Mislukt B.V.');
    const extra = Array.from({ length: 1000 }, (_, i) => `extra_${i}`);
    const accepted = await importCsv(own, owner.token, orgId, `${['full_name', ...extra].join(',')}\nAnna de Vries${',x'.repeat(1000)}\n`);
    expect(accepted.status).toBe(202);
    expect(accepted.body.errors).toHaveLength(1000);
    await createImportActivities({ db: workerDb }).failImport({
      organizationId: orgId,
      importId: accepted.body.id,
      message: 'the database stayed unreachable',
    });
    const failed = (await own.call('GET', `/imports/${accepted.body.id}`, { token: owner.token })).body;
    expect(failed.status).toBe('failed');
    expect(failed.errors).toHaveLength(1000);
    expect(failed.errors[998]).toEqual({ row: 1, field: 'extra_998', message: 'is not a known column: ignored' });
    expect(failed.errors[999]).toEqual({ row: 0, field: 'import', message: 'the database stayed unreachable' });
    await own.temporal.workflow
      .getHandle(accepted.body.workflow_id)
      .terminate('test done')
      .catch(() => undefined);
  } finally {
    await workerDb.destroy();
    await own.close();
  }
});

test('the timezone column: checked as POST /contacts checks it, stored in its canonical spelling', async () => {
  const { owner, orgId } = await newOrganization(api, 'Import Zones B.V.');
  const csv = [
    'full_name,email,company,domain,timezone',
    'Pat Baker,pat@abroad-a.com,Abroad A,abroad-a.com,america/new_york',
    'Lee Smith,lee@abroad-a.com,Abroad A,abroad-a.com,',
    'Kim Mars,kim@abroad-a.com,Abroad A,abroad-a.com,Mars/Olympus_Mons',
  ].join('\n');
  const accepted = await importCsv(api, owner.token, orgId, csv);
  expect(accepted.status).toBe(202);
  const done = await finished(api, owner.token, accepted.body.id);
  expect(done).toMatchObject({ status: 'completed', created_contacts: 2 });
  expect(done.errors).toEqual([{ row: 4, field: 'timezone', message: expect.stringContaining('IANA') }]);
  const { rows } = await owners.query(`SELECT email, timezone FROM contacts WHERE organization_id = $1 ORDER BY email`, [orgId]);
  expect(rows).toEqual([
    { email: 'lee@abroad-a.com', timezone: null },
    { email: 'pat@abroad-a.com', timezone: 'America/New_York' },
  ]);
});

test('a finished import starts the check of the addresses it brought: each imported contact gets its status', async () => {
  const { owner, orgId } = await newOrganization(api, 'Import Checks B.V.');
  const csv = [
    'full_name,email,company,domain',
    'Anna de Boer,anna@import-checks.nl,Import Checks,import-checks.nl',
    'Info Balie,info@import-checks.nl,Import Checks,import-checks.nl',
    'Wegwerp,wegwerp@mailinator.com,Import Checks,import-checks.nl',
  ].join('\n');
  const accepted = await importCsv(api, owner.token, orgId, csv);
  const done = await finished(api, owner.token, accepted.body.id);
  expect(done).toMatchObject({ status: 'completed', created_contacts: 3 });
  // The import's run starts the check as its last step, after the import reads completed.
  await resultWithin(api.temporal.workflow.getHandle(`import/${accepted.body.id}`));
  const counts = await resultWithin(api.temporal.workflow.getHandle(`organization/${orgId}/verify-contacts/import-${accepted.body.id}`));
  expect(counts).toEqual({ valid: 1, risky: 1, invalid: 1, unknown: 0, not_checked: 0 });
  const { rows } = await owners.query(
    `SELECT email, email_status, email_check->>'provider' AS provider FROM contacts WHERE organization_id = $1 AND email_checked_at IS NOT NULL ORDER BY email`,
    [orgId],
  );
  expect(rows).toEqual([
    { email: 'anna@import-checks.nl', email_status: 'valid', provider: 'builtin' },
    { email: 'info@import-checks.nl', email_status: 'risky', provider: 'builtin' },
    { email: 'wegwerp@mailinator.com', email_status: 'invalid', provider: 'builtin' },
  ]);
});

test('bad input: 4xx naming the field, and nothing is stored; another tenant gets 404 on every import endpoint; a viewer may read, not import', async () => {
  const { owner, orgId } = await newOrganization(api, 'Import Checks B.V.');
  const csv = 'name,email,company\nAnna de Vries,anna@devries.nl,De Vries BV\n';
  const noSource = await api.call('POST', `/imports?organizationId=${orgId}`, { token: owner.token, rawBody: csv, headers: { 'content-type': 'text/csv' } });
  expectProblem(noSource, 400, 'VALIDATION_FAILED');
  expect(noSource.body.errors).toEqual([{ path: 'query.sourceDescription', message: expect.any(String) }]);
  expectProblem(await importCsv(api, owner.token, orgId, csv, '&dedupe=sometimes'), 400, 'VALIDATION_FAILED');
  const json = await api.call('POST', `/imports?organizationId=${orgId}&sourceDescription=x`, { token: owner.token, body: { rows: [] } });
  expectProblem(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
  const unclosed = await importCsv(api, owner.token, orgId, 'name,email\n"Anna de Vries,anna@devries.nl\n');
  expectProblem(unclosed, 400, 'VALIDATION_FAILED');
  expect(unclosed.body.errors[0].path).toBe('body');
  const noName = await importCsv(api, owner.token, orgId, 'email,company\nanna@devries.nl,De Vries BV\n');
  expectProblem(noName, 400, 'VALIDATION_FAILED');
  expect(noName.body.errors[0]).toMatchObject({ path: 'body', message: expect.stringMatching(/full_name/) });
  expectProblem(await importCsv(api, owner.token, orgId, ''), 400, 'VALIDATION_FAILED');
  const nul = await importCsv(api, owner.token, orgId, 'name,email\nAn\u0000na,anna@devries.nl\n');
  expectProblem(nul, 400, 'VALIDATION_FAILED');
  expect(nul.body.errors[0].path).toBe('body.row 2.full_name');
  const tooLarge = await importCsv(api, owner.token, orgId, `name\n${'x'.repeat(20 * 1024 * 1024)}\n`);
  expectProblem(tooLarge, 413, 'PAYLOAD_TOO_LARGE');
  expect((await api.call('GET', `/imports?organizationId=${orgId}`, { token: owner.token })).body).toEqual([]);

  const good = await importCsv(api, owner.token, orgId, csv);
  expect(good.status).toBe(202);
  const other: TestUser = await newUser();
  await newOrganization(api, 'Ander B.V.').then(() => undefined);
  expectProblem(await api.call('GET', `/imports/${good.body.id}`, { token: other.token }), 404, 'NOT_FOUND');
  expectProblem(await api.call('GET', `/imports?organizationId=${orgId}`, { token: other.token }), 404, 'NOT_FOUND');
  expectProblem(await importCsv(api, other.token, orgId, csv), 404, 'NOT_FOUND');
  const viewer = await addMember(api, owner, orgId, 'viewer');
  expect((await api.call('GET', `/imports/${good.body.id}`, { token: viewer.token })).status).toBe(200);
  expectProblem(await importCsv(api, viewer.token, orgId, csv), 403, 'FORBIDDEN');
  const done = await finished(api, owner.token, good.body.id);
  expect(done).toMatchObject({ status: 'completed', created_contacts: 1, created_companies: 1 });
}, 120_000);

test('a worker SIGKILLed half-way: the run goes on where it stopped and every row is imported once', async () => {
  const queue = `import-${randomUUID()}`;
  const own = await startApi({
    workflows: new WorkflowStarter(api.temporal, {
      TEMPORAL_TASK_QUEUE: queue,
      INGEST_RETRY_INITIAL_INTERVAL_MS: 200,
      importRun: { chunkSize: 50, chunkTimeoutMs: 5_000 },
    }),
  });
  try {
    const { owner, orgId } = await newOrganization(own, 'Crash Import B.V.');
    const victim = await startWorkerProcess(workerEnv(queue));
    workers.push(victim);
    const lines = ['first_name,last_name,email,company,website'];
    for (let i = 0; i < 2000; i++) lines.push(`Naam,Nummer ${i},n${i}@firma${i % 25}.nl,Firma ${i % 25},https://www.firma${i % 25}.nl/`);
    const accepted = await importCsv(own, owner.token, orgId, lines.join('\n'));
    expect(accepted.status).toBe(202);
    await until(
      'a few chunks imported',
      async () => (await own.call('GET', `/imports/${accepted.body.id}`, { token: owner.token })).body.processed_rows >= 300,
      60_000,
    );
    victim.kill('SIGKILL');
    const atKill = (await own.call('GET', `/imports/${accepted.body.id}`, { token: owner.token })).body;
    expect(atKill.status).toBe('running');
    expect(atKill.processed_rows).toBeLessThan(2000);
    workers.push(await startWorkerProcess(workerEnv(queue)));
    const done = await finished(own, owner.token, accepted.body.id, 180_000);
    expect(done).toMatchObject({
      status: 'completed',
      processed_rows: 2000,
      created_contacts: 2000,
      updated_contacts: 0,
      created_companies: 25,
      skipped: [],
      errors: [],
    });
    const { rows } = await owners.query(
      'SELECT count(*)::int AS n, count(DISTINCT lower(email))::int AS emails, count(DISTINCT company_id)::int AS companies FROM contacts WHERE organization_id = $1',
      [orgId],
    );
    expect(rows[0]).toEqual({ n: 2000, emails: 2000, companies: 25 });
    process.stderr.write(`[import sigkill] killed at ${atKill.processed_rows} of 2000 rows\n`);
  } finally {
    await own.close();
  }
}, 300_000);
