import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';
import { STAGES, StageTable } from '../../workflows/stages';
import { PROVIDER_ACTIVITIES } from '../../workflows/task-queues';
import { chooseVariant } from '../../domain/outreach/variants';

/**
 * Recorded workflow histories (test/histories/*.json) must replay against today's workflow code.
 * A change that would break running workflows fails here: guard it with patched()/deprecatePatch()
 * (docs/architecture.md, "Changing workflow code safely"). `npm run record-histories` records them anew
 * (test/record/histories.recorder.ts).
 */
const HISTORIES = path.join(__dirname, '../histories');
const WORKFLOWS = require.resolve('../../workflows');

// The SDK's native runtime: installed once in this test process, quiet.
beforeAll(() => {
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    shutdownSignals: [],
    // The non-determinism case below makes the core log a warning by design.
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }), forward: {} } },
  });
});

const recorded = () =>
  readdirSync(HISTORIES)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ workflowId: f.replace(/\.json$/, ''), history: historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES, f), 'utf8'))) }));

test('every recorded history replays against the current workflow code', async () => {
  const histories = recorded();
  // `-before-<change>` histories were recorded before a guarded change: they prove old runs still replay.
  expect(histories.map((h) => h.workflowId).sort()).toEqual([
    'booking-calcom',
    'contact-import',
    'crm-outcome',
    'enrich-company',
    'enrich-company-before-waterfall',
    'ingest-source',
    'mailbox-health',
    'mailbox-inbox',
    'meeting-cancelled',
    'meeting-reminder',
    'meeting-reminder-before-reminder-send',
    'process-signal-ignored',
    'process-signal-ignored-before-drafting',
    'process-signal-ignored-before-person-ignore-gate',
    'process-signal-opportunity',
    'process-signal-opportunity-before-drafting',
    'process-signal-opportunity-before-enrichment',
    'process-signal-opportunity-before-person-ignore-gate',
    'process-signal-resumed',
    'reconcile-outreach',
    'reconcile-signals',
    'reconcile-signals-before-enrichments',
    'send-message',
    'send-message-before-first-check',
    'send-message-rechecked',
    'sequence-completed',
    'sequence-completed-before-reconcile',
    'sequence-failed',
    'sequence-ooo-resumed',
    'sequence-restarted',
    'sequence-stopped',
    'sequence-stopped-before-reconcile',
    'sequence-variants',
    'strategist-no-company',
    'strategist-proposal',
    'strategist-proposal-before-writer-queue',
    'verify-contacts',
    'webhook-endpoint',
  ]);
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS, replayName: 'recorded-histories' }, histories)) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  expect(failures).toEqual([]);
});

/**
 * Step variants: the recorded run's drafts carry the variant each step chose
 * (prepareDraft's results in the history, which the replay above feeds back to the workflow), and it
 * is the one the assignment chooses today for that enrollment and step: a replay or a retry keeps it.
 */
test("a recorded sequence with variants keeps each step's variant", () => {
  const raw = JSON.parse(readFileSync(path.join(HISTORIES, 'sequence-variants.json'), 'utf8')) as { events: Array<Record<string, any>> };
  const decode = (p: { data: string }) => JSON.parse(Buffer.from(p.data, 'base64').toString('utf8'));
  const scheduled = new Map<string, { enrollmentId: string; position: number }>();
  const chosen: Array<{ position: number; key: string; expected: string | undefined; subject: unknown }> = [];
  for (const e of raw.events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s?.activityType?.name === 'prepareDraft') scheduled.set(String(e.eventId), decode(s.input.payloads[0]));
    const c = e.activityTaskCompletedEventAttributes;
    const ref = c && scheduled.get(String(c.scheduledEventId));
    if (ref) {
      const prepared = decode(c.result.payloads[0]);
      const variants =
        ref.position === 1
          ? [
              { key: 'permit', subject: 'Uw vergunning' },
              { key: 'costs', subject: 'Lagere bouwkosten' },
            ]
          : [{ key: 'short' }, { key: 'case' }, { key: 'call', subject: 'Even bellen?' }];
      const expected = chooseVariant(ref.enrollmentId, ref.position, variants)!;
      chosen.push({ position: ref.position, key: prepared.context.variantKey, expected: expected.key, subject: prepared.input.variant?.subject ?? null });
      expect(prepared.input.variant?.subject ?? null).toBe(expected.subject ?? null);
    }
  }
  expect(chosen.map((c) => c.position)).toEqual([1, 2]);
  for (const c of chosen) expect(c.key).toBe(c.expected);
});

test('a non-deterministic change of the workflow fails the replay', async () => {
  const history = recorded().find((h) => h.workflowId === 'process-signal-opportunity')!.history;
  await expect(
    Worker.runReplayHistory({ workflowsPath: require.resolve('../fixtures/workflows/reordered-process-signal'), replayName: 'reordered' }, history),
  ).rejects.toThrow(/[Nn]ondeterminism|DeterminismViolation/);
});

test('the stage table: typed activities, and every stage added after the first recorded runs names its patch', () => {
  // Checked by the type-check of `npm test`: each line below must fail to compile.
  // @ts-expect-error a stage added after the first recorded runs needs the patch that guards it
  const withoutPatch: StageTable = { drafting: { activity: (a) => a.scoreSignal } };
  // @ts-expect-error a stage's activity takes a signal and returns a stage outcome
  const notAStage: StageTable = { scoring: { activity: (a) => a.readSignalStatus } };
  // @ts-expect-error the first stages replay without a patch and must not gain one
  const patchedOriginal: StageTable = { scoring: { activity: (a) => a.scoreSignal, patch: 'x' } };
  const drafting: StageTable = { drafting: { activity: (a) => a.scoreSignal, patch: 'drafting-stage' } };
  expect([withoutPatch, notAStage, patchedOriginal, drafting]).toHaveLength(4);

  expect(Object.entries(STAGES).map(([stage, entry]) => [stage, entry?.patch ?? null, entry?.queue ?? 'main'])).toEqual([
    ['classification', null, 'providers'],
    ['scoring', null, 'main'],
    ['opportunity', null, 'main'],
    ['enrichment', 'enrichment-stage', 'main'],
    ['drafting', 'drafting-stage', 'main'],
    ['strategist', 'strategist-stage', 'main'],
  ]);
});

test('every stage marked for the providers queue names an activity the providers Worker serves', () => {
  // The stage picks its activity by a function: call it on a stand-in that answers each name asked for.
  const named = new Proxy({}, { get: (_t, name) => name }) as Parameters<NonNullable<(typeof STAGES)['scoring']>['activity']>[0];
  const onProviders = Object.values(STAGES)
    .filter((e) => e?.queue === 'providers')
    .map((e) => e!.activity(named) as unknown as string);
  expect(onProviders).toEqual(['classifySignal']);
  for (const name of onProviders) expect(PROVIDER_ACTIVITIES).toContain(name);
});
