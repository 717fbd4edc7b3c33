import { createHash, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { DEFAULT_PROFILE } from '../../domain/classification/default-profile';
import { OpenAiCompatibleClassifier, renderPrompt } from '../../activities/providers/classification/openai-compatible';
import { ProviderError } from '../../activities/providers/llm/chat-json';
import { InvalidModelOutputError } from '../../domain/classification/types';
import { createSignalStageActivities } from '../../activities/signal-stages';
import { createDb, DB } from '../../db/pool';
import { startChatServer, ChatServer } from '../helpers/chat-server';
import { testEnv } from '../helpers/tokens';

let chat: ChatServer;
beforeAll(async () => {
  chat = await startChatServer();
});
afterAll(() => chat.close());

const input = {
  title: 'Aanvraag omgevingsvergunning: 48 woningen met warmtepompen',
  summary: 'Geraamde bouwsom EUR 14,5 mln.',
  signalType: 'permit',
  language: 'nl',
  profile: DEFAULT_PROFILE,
};
const valid = JSON.stringify({
  commercial_relevance: true,
  relevance_reasons: ['new housing with heat pumps'],
  project_category: 'residential',
  project_stage: 'permit_application',
  estimated_size_eur: 14500000,
  confidence: 0.82,
  fit_matches: ['warmtepomp'],
});

test('speaks chat completions and records model, prompt key, version and hash', async () => {
  const classifier = new OpenAiCompatibleClassifier({ baseUrl: chat.baseUrl, model: 'gpt-x', apiKey: 'sk-test-123' });
  chat.reply(valid);
  const r = await classifier.classify(input);
  const req = chat.requests.at(-1)!;
  expect(req.headers.authorization).toBe('Bearer sk-test-123');
  expect(req.body).toMatchObject({ model: 'gpt-x', temperature: 0, response_format: { type: 'json_object' } });
  expect(req.body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
  const prompt = renderPrompt(input);
  expect(req.body.messages[1].content).toBe(prompt.user);
  expect(r).toMatchObject({
    model: 'test-model-2026-01',
    promptKey: 'signal-classification',
    promptVersion: '1',
    promptHash: createHash('sha256').update(`${prompt.system}\n---\n${prompt.user}`).digest('hex'),
    commercialRelevance: true,
    projectCategory: 'residential',
    estimatedSize: 14_500_000,
    confidence: 0.82,
  });
});

test('output that is not the schema, or not JSON, is invalid model output', async () => {
  const classifier = new OpenAiCompatibleClassifier({ baseUrl: chat.baseUrl, model: 'gpt-x' });
  chat.reply(JSON.stringify({ commercial_relevance: 'yes' }));
  await expect(classifier.classify(input)).rejects.toBeInstanceOf(InvalidModelOutputError);
  chat.reply('Sure! Here is the classification: residential.');
  await expect(classifier.classify(input)).rejects.toBeInstanceOf(InvalidModelOutputError);
  chat.reply('```json\n' + valid + '\n```'); // fenced JSON is accepted
  await expect(classifier.classify(input)).resolves.toMatchObject({ projectCategory: 'residential' });
});

test('HTTP errors say whether a retry can help', async () => {
  const classifier = new OpenAiCompatibleClassifier({ baseUrl: chat.baseUrl, model: 'gpt-x' });
  chat.reply({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
  await expect(classifier.classify(input)).rejects.toEqual(new ProviderError('LLM answered HTTP 401: Incorrect API key provided', false));
  chat.reply({ status: 503 });
  await expect(classifier.classify(input)).rejects.toMatchObject({ retryable: true });
});

describe('the classification stage with an LLM', () => {
  let owner: Pool;
  let db: DB;
  const orgId = randomUUID();
  const signalId = randomUUID();
  beforeAll(async () => {
    owner = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 1 });
    db = createDb(testEnv('TEST_WORKER_DB_URL'), 2); // activities run as the worker role
    const sourceId = randomUUID();
    await owner.query(`INSERT INTO organizations (id, name, created_by) VALUES ($1, 'LLM org', gen_random_uuid())`, [orgId]);
    await owner.query(`INSERT INTO sources (id, organization_id, provider_key, name) VALUES ($1, $2, 'rss', 's')`, [sourceId, orgId]);
    await owner.query(
      `INSERT INTO signals (id, organization_id, source_id, external_id, title, summary, dedupe_key) VALUES ($1, $2, $3, 'x-1', $4, $5, 'title:x')`,
      [signalId, orgId, sourceId, input.title, input.summary],
    );
  });
  afterAll(async () => {
    await db.destroy();
    await owner.end();
  });

  test('invalid output fails the attempt (retryable) and writes nothing; valid output writes one current version', async () => {
    const stages = createSignalStageActivities({ db, classifierFor: async () => new OpenAiCompatibleClassifier({ baseUrl: chat.baseUrl, model: 'gpt-x' }) });
    chat.reply(JSON.stringify({ commercial_relevance: true }));
    await expect(stages.classifySignal({ organizationId: orgId, signalId })).rejects.toMatchObject({ type: 'InvalidModelOutput', nonRetryable: false });
    expect((await owner.query('SELECT count(*)::int AS n FROM classifications WHERE signal_id = $1', [signalId])).rows[0].n).toBe(0);
    expect((await owner.query('SELECT status FROM signals WHERE id = $1', [signalId])).rows[0].status).toBe('ingested');

    chat.reply(valid);
    await expect(stages.classifySignal({ organizationId: orgId, signalId })).resolves.toMatchObject({ status: 'classified' });
    const rows = await owner.query(
      'SELECT version, is_current, model, prompt_key, prompt_version, length(prompt_hash) AS hash_len FROM classifications WHERE signal_id = $1',
      [signalId],
    );
    expect(rows.rows).toEqual([
      { version: 1, is_current: true, model: 'test-model-2026-01', prompt_key: 'signal-classification', prompt_version: '1', hash_len: 64 },
    ]);
  });
});
