import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import type { PreparedDraft, SequenceRef, SequenceState } from '../../activities/sequence';
import type { SendOutcome } from '../../activities/send';
import type { DraftInput, WrittenDraft } from '../../domain/outreach/draft';
import { stepOutcome } from '../../domain/outreach/messages';
import { resolveTemporalCli } from '../../scripts/lib/temporal-server';
import { SA, workflowIds } from '../../workflows/search-attributes';
import type { SequenceInput, SequenceResult, sequenceWorkflow } from '../../workflows/sequence';
import { enrollmentChangedSignal } from '../../workflows/sequence-signals';
import { providerTaskQueue } from '../../workflows/task-queues';

/**
 * The sequence workflow's branches, run as they are (the real workflow code, its child send workflow
 * and its patches) on a local Temporal dev server, against stub activities: plain functions that
 * answer from a scripted world (the enrollment, its steps, its drafts) and record every call. No
 * database and no worker process; each test changes the world the way the API would (write, then
 * signal) and checks which activities ran, with what, in which order, and how the run ended.
 *
 * Clocks are inputs: a step's delay comes from the world, and recheckMs and holdRecheckMs are set
 * per test, long where a branch must not depend on them (so only a signal can move the run) and
 * short where the branch is the recheck itself. The test waits for a run to be blocked by reading
 * its history (a timer started) before it changes the world, never by sleeping.
 */

const HOUR = 3600_000;
/** How long a wait for a run to reach a point may take before the test fails (a branch that never gets there). */
const REACH_MS = 20_000;

interface Call {
  name: string;
  args: any;
  /** The run that called it (the sequence's `enrollment/<id>` or the child's `message/<id>/send`). */
  workflowId: string;
  taskQueue: string;
}

interface Message {
  status: string;
  redraft?: boolean;
}

/** One test's scripted world: what the database would answer, changed by the test as the API would. */
class World {
  /** Each world is its own organization: every activity's arguments name it. */
  readonly organizationId = `org-${randomUUID()}`;
  readonly enrollmentId = `enr-${randomUUID()}`;
  readonly campaignId = 'camp-stub';
  enrollment: { status: string; resumeAtMs: number | null; currentStep: number } | null = { status: 'active', resumeAtMs: null, currentStep: 0 };
  stepCount = 1;
  /** A step's delay after the instant it counts from (planStep's fromMs). */
  delayMs: (position: number) => number = () => 0;
  /** prepareDraft's answer (default: a draft to write). */
  prepare: (position: number, attempt: number) => PreparedDraft = (position) => ({ input: draftInput(position), context: draftContext(this.draftStatus) });
  /** The status a stored draft starts in: `pending_approval` (review mode) or `approved` (auto mode). */
  draftStatus = 'approved';
  messages = new Map<string, Message>();
  /** writeDraft's answer (may throw). */
  write: (input: DraftInput) => WrittenDraft = (input) => written(input);
  /** Whether the mailbox lets the child book a slot (false: scheduleSend answers held). */
  mailboxReady = true;
  /** sendMessage's answer (may throw); the default sends. */
  send: (messageId: string, attempt: number) => SendOutcome = () => ({ status: 'sent', providerMessageId: 'provider-1' });
  calls: Call[] = [];

  get ref(): SequenceRef {
    return { organizationId: this.organizationId, enrollmentId: this.enrollmentId };
  }
  get steps(): SequenceState['steps'] {
    return Array.from({ length: this.stepCount }, (_, i) => ({ position: i + 1, channel: 'email', delayDays: 0 }));
  }
  names(workflowId?: string): string[] {
    return this.calls.filter((c) => !workflowId || c.workflowId === workflowId).map((c) => c.name);
  }
  args(name: string): any[] {
    return this.calls.filter((c) => c.name === name).map((c) => c.args);
  }
  setMessage(id: string, status: string, redraft = false): void {
    this.messages.set(id, { status, redraft });
  }
  message(id: string): Message {
    const m = this.messages.get(id);
    if (!m) throw ApplicationFailure.nonRetryable(`message ${id} not found`, 'StagePrecondition');
    return m;
  }
}

const draftInput = (position: number): DraftInput => ({
  channel: 'email',
  position,
  followUp: position > 1,
  instructions: null,
  brief: null,
  campaign: { name: 'Stub campaign', goal: null },
  contact: { fullName: 'Ada Stub', title: null },
  company: { name: 'Stub BV' },
  locale: 'en-GB',
  formality: 'formal',
  sender: { name: null },
});

const draftContext = (status: string): Extract<PreparedDraft, { input: DraftInput }>['context'] => ({
  stepId: 'step-stub',
  campaignId: 'camp-stub',
  contactId: 'contact-stub',
  mailboxId: 'mailbox-stub',
  channel: 'email',
  status,
  fromAddress: 'sender@stub.test',
  toAddress: 'ada@stub.test',
  redraftOf: null,
  why: {
    brief: null,
    compliance: { country: 'GB', locale: 'en-GB', rule: 'email_personal', requirements: [] },
    channel: 'email',
    firstToPerson: true,
    mode: 'auto',
  },
});

const written = (input: DraftInput): WrittenDraft => ({
  subject: `Step ${input.position}`,
  body: 'Hello from the stub writer.',
  model: 'stub',
  promptKey: null,
  promptVersion: null,
  confidence: 1,
  risks: [],
});

/** A draft's message id: the enrollment, the step and the attempt. */
const messageIdOf = (w: World, position: number, attempt: number) => `${w.enrollmentId}/m${position}.${attempt}`;

/** The worlds by organization id. */
const worlds = new Map<string, World>();

function worldOf(r: { organizationId: string }): World {
  const w = worlds.get(r.organizationId);
  if (!w) throw ApplicationFailure.nonRetryable(`no world for ${r.organizationId}`, 'StagePrecondition');
  return w;
}

function record(w: World, name: string, args: unknown): void {
  const info = Context.current().info;
  w.calls.push({ name, args, workflowId: info.workflowExecution?.workflowId ?? '', taskQueue: info.taskQueue });
}

/** An out-of-office pause whose resume_at passed is resumed on read, as the real activities do. */
function resumeWhenDue(w: World): boolean {
  const e = w.enrollment;
  if (e?.status === 'paused' && e.resumeAtMs !== null && e.resumeAtMs <= Date.now()) {
    e.status = 'active';
    e.resumeAtMs = null;
    return true;
  }
  return false;
}

type MainStubs = Pick<
  Activities,
  'sequenceState' | 'planStep' | 'prepareDraft' | 'storeDraft' | 'stepMessageState' | 'finishEnrollment' | 'scheduleSend' | 'sendMessage'
>;

/** The activities of the workflow's own queue: the sequence's and the child send's. */
const mainStubs: MainStubs = {
  async sequenceState(ref) {
    const w = worldOf(ref);
    record(w, 'sequenceState', ref);
    resumeWhenDue(w);
    return w.enrollment ? { ...w.enrollment, pauseReason: null, steps: w.steps } : null;
  },
  async planStep(r) {
    const w = worldOf(r);
    record(w, 'planStep', r);
    return { dueMs: r.fromMs + w.delayMs(r.position) };
  },
  async prepareDraft(r) {
    const w = worldOf(r);
    record(w, 'prepareDraft', r);
    return w.prepare(r.position, r.attempt);
  },
  async storeDraft(r) {
    const w = worldOf(r);
    record(w, 'storeDraft', r);
    const id = messageIdOf(w, r.position, r.attempt);
    if (!w.messages.has(id)) w.setMessage(id, r.prepared.context.status);
    return id;
  },
  async stepMessageState(r) {
    const w = worldOf(r);
    record(w, 'stepMessageState', r);
    const resumed = resumeWhenDue(w);
    const m = w.message(r.messageId);
    return {
      status: m.status,
      outcome: stepOutcome({ status: m.status, redraft_requested: m.redraft }),
      enrollmentStatus: w.enrollment?.status ?? null,
      resumeAtMs: w.enrollment?.resumeAtMs ?? null,
      resumed,
    };
  },
  async finishEnrollment(r) {
    const w = worldOf(r);
    record(w, 'finishEnrollment', r);
    const to = { complete: 'completed', fail: 'failed', stop: 'stopped' } as const;
    if (w.enrollment) w.enrollment.status = to[r.action];
  },
  async scheduleSend(r) {
    const w = worldOf(r);
    record(w, 'scheduleSend', r);
    const m = w.message(r.messageId);
    if (m.status !== 'approved' && m.status !== 'scheduled') return { state: 'final', status: m.status };
    if (!w.mailboxReady) return { state: 'held', reason: 'mailbox not sendable' };
    m.status = 'scheduled';
    // A slot already open: the child sends at once, with no sleep until it.
    return { state: 'scheduled', slotAtMs: Date.now() - 1000, windowEndsAtMs: Date.now() + HOUR };
  },
  async sendMessage(r) {
    const w = worldOf(r);
    record(w, 'sendMessage', r);
    const outcome = w.send(r.messageId, w.args('sendMessage').length);
    w.message(r.messageId).status = outcome.status;
    return outcome;
  },
};

/** The providers queue serves writeDraft alone (as PROVIDER_ACTIVITIES says). */
const providerStubs: Pick<Activities, 'writeDraft'> = {
  async writeDraft(r) {
    const w = worldOf(r);
    record(w, 'writeDraft', r);
    return w.write(r.input);
  },
};

let env: TestWorkflowEnvironment;
const taskQueue = `sequence-branches-${randomUUID()}`;
let workers: Promise<void>[] = [];
let mainWorker: Worker;
let providersWorker: Worker;

beforeAll(async () => {
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    shutdownSignals: [],
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }), forward: {} } },
  });
  env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: resolveTemporalCli((line) => process.stderr.write(`${line}\n`)) },
      searchAttributes: Object.values(SA),
    },
  });
  // The CLI registers the search attributes a moment after the namespace answers.
  await reach(async () => {
    const sa = await env.connection.operatorService.listSearchAttributes({ namespace: 'default' });
    return Object.keys(SA).every((k) => k in (sa.customAttributes ?? {}));
  }, 'the search attributes are registered');
  mainWorker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities: mainStubs,
  });
  providersWorker = await Worker.create({ connection: env.nativeConnection, taskQueue: providerTaskQueue(taskQueue), activities: providerStubs });
  workers = [mainWorker.run(), providersWorker.run()];
}, 120_000);

afterAll(async () => {
  mainWorker?.shutdown();
  providersWorker?.shutdown();
  await Promise.all(workers);
  await env?.teardown();
}, 60_000);

/** Waits until `ok` holds; fails with `what` when it never does. */
async function reach(ok: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + REACH_MS;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`never reached: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function start(w: World, input: Partial<SequenceInput> = {}): Promise<WorkflowHandleWithFirstExecutionRunId<typeof sequenceWorkflow>> {
  worlds.set(w.organizationId, w);
  return env.client.workflow.start<typeof sequenceWorkflow>('sequenceWorkflow', {
    taskQueue,
    workflowId: workflowIds.sequence(w.enrollmentId),
    args: [
      {
        organizationId: w.organizationId,
        enrollmentId: w.enrollmentId,
        campaignId: w.campaignId,
        mailboxId: 'mailbox-stub',
        retryInitialIntervalMs: 50,
        ...input,
      },
    ],
  });
}

/** The run's result (the chain's last run), or a failure naming the run when it does not end. */
async function resultOf(w: World, handle: WorkflowHandle<typeof sequenceWorkflow>): Promise<SequenceResult> {
  let timer: NodeJS.Timeout | undefined;
  const never = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${handle.workflowId} did not end; calls: ${w.names().join(', ')}`)), REACH_MS);
  });
  try {
    return await Promise.race([handle.result(), never]);
  } finally {
    clearTimeout(timer);
  }
}

/** The durations of the timers a run started, in its history's order. */
async function timersOf(workflowId: string, runId?: string): Promise<number[]> {
  const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
  return (history.events ?? []).flatMap((e) => (e.timerStartedEventAttributes ? [tsToMs(e.timerStartedEventAttributes.startToFireTimeout)] : []));
}

/** Waits until the run has started `n` timers: it is blocked on its n-th wait (a child not started yet has none). */
async function waitingOn(workflowId: string, n: number): Promise<number[]> {
  let timers: number[] = [];
  await reach(async () => (timers = await timersOf(workflowId).catch(() => [])).length >= n, `${workflowId} starts timer ${n}`);
  return timers;
}

describe('sequenceWorkflow with stub activities', () => {
  test('an enrollment that is gone ends the run as missing, with nothing planned', async () => {
    const w = new World();
    w.enrollment = null;
    const result = await resultOf(w, await start(w));
    expect(result).toEqual({ ended: 'missing', position: 0 });
    expect(w.names()).toEqual(['sequenceState']);
  });

  test('a stopped enrollment ends the run at once: no draft, no send, no finish', async () => {
    const w = new World();
    w.enrollment!.status = 'stopped';
    w.stepCount = 3;
    const result = await resultOf(w, await start(w));
    expect(result).toEqual({ ended: 'stopped', position: 1 });
    // The state read at the start serves the first step's wait: one read, no second.
    expect(w.names()).toEqual(['sequenceState', 'planStep']);
  });

  test('a paused enrollment holds the step delay until a signal says it resumed', async () => {
    const w = new World();
    w.enrollment!.status = 'paused';
    w.prepare = () => ({ skip: 'stub: nothing to send' });
    const handle = await start(w, { recheckMs: HOUR });
    // Paused without resume_at: it waits for a signal (or recheckMs), though the step is due.
    expect(await waitingOn(handle.workflowId, 1)).toEqual([HOUR]);
    expect(w.names()).toEqual(['sequenceState', 'planStep']);

    w.enrollment!.status = 'active';
    await handle.signal(enrollmentChangedSignal);
    expect(await resultOf(w, handle)).toEqual({ ended: 'completed', position: 1 });
    expect(w.names()).toEqual(['sequenceState', 'planStep', 'sequenceState', 'prepareDraft', 'finishEnrollment']);
    expect(w.args('finishEnrollment')).toEqual([{ ...w.ref, action: 'complete' }]);
    expect(await timersOf(handle.workflowId)).toEqual([HOUR]);
  });

  test('an out-of-office pause ends by itself at resume_at, without a signal', async () => {
    const w = new World();
    w.enrollment = { status: 'paused', resumeAtMs: Date.now() + 1500, currentStep: 0 };
    w.prepare = () => ({ skip: 'stub: nothing to send' });
    const handle = await start(w, { recheckMs: HOUR });
    expect(await resultOf(w, handle)).toEqual({ ended: 'completed', position: 1 });
    // One wait, until resume_at (at least a second), not recheckMs; the read after it finds the pause over.
    const [wait, ...more] = await timersOf(handle.workflowId);
    expect(more).toEqual([]);
    expect(wait).toBeGreaterThanOrEqual(1000);
    expect(wait).toBeLessThanOrEqual(1500);
    expect(w.names()).toEqual(['sequenceState', 'planStep', 'sequenceState', 'prepareDraft', 'finishEnrollment']);
  });

  test('review mode: the draft waits for a person; the approval signal sends it through the child send workflow', async () => {
    const w = new World();
    w.draftStatus = 'pending_approval';
    const handle = await start(w, { recheckMs: HOUR, holdRecheckMs: HOUR });
    expect(await waitingOn(handle.workflowId, 1)).toEqual([HOUR]);
    expect(w.names()).toEqual(['sequenceState', 'planStep', 'prepareDraft', 'writeDraft', 'storeDraft', 'stepMessageState']);
    // The words come from the providers queue, and what was written is what is stored.
    const writeCall = w.calls.find((c) => c.name === 'writeDraft')!;
    expect(writeCall.taskQueue).toBe(providerTaskQueue(taskQueue));
    expect(writeCall.args).toEqual({ organizationId: w.organizationId, input: draftInput(1) });
    expect(w.args('storeDraft')[0]).toMatchObject({ ...w.ref, position: 1, attempt: 1, written: written(draftInput(1)) });

    const messageId = messageIdOf(w, 1, 1);
    w.setMessage(messageId, 'approved');
    await handle.signal(enrollmentChangedSignal);
    expect(await resultOf(w, handle)).toEqual({ ended: 'completed', position: 1 });

    const child = workflowIds.sendMessage(messageId);
    expect(w.names(handle.workflowId)).toEqual([
      'sequenceState',
      'planStep',
      'prepareDraft',
      'writeDraft',
      'storeDraft',
      'stepMessageState',
      'stepMessageState',
      'stepMessageState',
      'finishEnrollment',
    ]);
    expect(w.names(child)).toEqual(['scheduleSend', 'sendMessage']);
    // The send ran between the approval's read and the read that found it sent.
    expect(w.names()).toEqual([...w.names(handle.workflowId).slice(0, 7), 'scheduleSend', 'sendMessage', 'stepMessageState', 'finishEnrollment']);
    expect(w.args('sendMessage')).toEqual([{ organizationId: w.organizationId, messageId }]);
    expect(w.args('finishEnrollment')).toEqual([{ ...w.ref, action: 'complete' }]);
    const described = await env.client.workflow.getHandle(child).describe();
    expect(described.typedSearchAttributes.get(SA.EnrollmentId)).toBe(w.enrollmentId);
    expect(described.typedSearchAttributes.get(SA.CampaignId)).toBe(w.campaignId);
    expect(described.typedSearchAttributes.get(SA.MailboxId)).toBe('mailbox-stub');
    expect(await env.client.workflow.getHandle(child).result()).toEqual({ status: 'sent', providerMessageId: 'provider-1' });
  });

  test('without a signal, an approval is seen at the next recheck (recheckMs)', async () => {
    const w = new World();
    w.draftStatus = 'pending_approval';
    const handle = await start(w, { recheckMs: 300, holdRecheckMs: HOUR });
    await waitingOn(handle.workflowId, 1);
    w.setMessage(messageIdOf(w, 1, 1), 'approved');
    expect(await resultOf(w, handle)).toEqual({ ended: 'completed', position: 1 });
    expect(w.names(workflowIds.sendMessage(messageIdOf(w, 1, 1)))).toEqual(['scheduleSend', 'sendMessage']);
    // Every wait of the sequence was a recheck (the approval and the send in the child).
    const timers = await timersOf(handle.workflowId);
    expect(timers.length).toBeGreaterThanOrEqual(1);
    expect(new Set(timers)).toEqual(new Set([300]));
  });

  test('a long step delay is watched every recheckMs: a stop written without a signal ends the run at the next look', async () => {
    const w = new World();
    w.delayMs = () => 24 * HOUR;
    const handle = await start(w, { recheckMs: 300 });
    await waitingOn(handle.workflowId, 1);
    w.enrollment!.status = 'stopped';
    expect(await resultOf(w, handle)).toEqual({ ended: 'stopped', position: 1 });
    const timers = await timersOf(handle.workflowId);
    expect(new Set(timers)).toEqual(new Set([300]));
    expect(w.names()).toEqual(['sequenceState', 'planStep', ...timers.map(() => 'sequenceState')]);
  });

  test('a redraft request writes the step again (attempt 2); a rejected first message then stops the enrollment', async () => {
    const w = new World();
    w.draftStatus = 'pending_approval';
    const handle = await start(w, { recheckMs: HOUR });
    await waitingOn(handle.workflowId, 1);
    w.setMessage(messageIdOf(w, 1, 1), 'rejected', true);
    await handle.signal(enrollmentChangedSignal);
    await waitingOn(handle.workflowId, 2);
    w.setMessage(messageIdOf(w, 1, 2), 'rejected');
    await handle.signal(enrollmentChangedSignal);

    expect(await resultOf(w, handle)).toEqual({ ended: 'stopped', position: 1 });
    expect(w.args('prepareDraft').map((a) => [a.position, a.attempt])).toEqual([
      [1, 1],
      [1, 2],
    ]);
    expect(w.args('storeDraft').map((a) => a.attempt)).toEqual([1, 2]);
    expect(w.names()).toEqual([
      'sequenceState',
      'planStep',
      'prepareDraft',
      'writeDraft',
      'storeDraft',
      'stepMessageState',
      'stepMessageState',
      'planStep',
      'sequenceState',
      'prepareDraft',
      'writeDraft',
      'storeDraft',
      'stepMessageState',
      'stepMessageState',
      'finishEnrollment',
    ]);
    expect(w.args('finishEnrollment')).toEqual([{ ...w.ref, action: 'stop', reason: 'the first message was rejected' }]);
    expect(w.names().filter((n) => n === 'scheduleSend' || n === 'sendMessage')).toEqual([]);
  });

  test('a step the gate skips and a rejected follow-up end only their steps: the enrollment completes', async () => {
    const w = new World();
    w.stepCount = 2;
    const followUp = `${w.enrollmentId}/existing-2`;
    w.setMessage(followUp, 'rejected');
    w.prepare = (position) => (position === 1 ? { skip: 'the email step cannot reach the contact now' } : { existing: followUp });
    const result = await resultOf(w, await start(w));
    expect(result).toEqual({ ended: 'completed', position: 2 });
    expect(w.names()).toEqual([
      'sequenceState',
      'planStep',
      'prepareDraft',
      'planStep',
      'sequenceState',
      'prepareDraft',
      'stepMessageState',
      'finishEnrollment',
    ]);
    expect(w.args('planStep').map((a) => a.position)).toEqual([1, 2]);
    expect(w.args('finishEnrollment')).toEqual([{ ...w.ref, action: 'complete' }]);
  });

  test('the compliance gate refusing the contact at the draft ends the run stopped, with nothing written', async () => {
    const w = new World();
    w.stepCount = 2;
    w.prepare = () => ({ stop: 'compliance: objected' });
    const result = await resultOf(w, await start(w));
    expect(result).toEqual({ ended: 'stopped', position: 1 });
    // prepareDraft stopped the enrollment itself: the run writes nothing and finishes nothing.
    expect(w.names()).toEqual(['sequenceState', 'planStep', 'prepareDraft']);
  });

  test('a writer that fails for good ends the enrollment failed with the reason, without retrying', async () => {
    const w = new World();
    w.write = () => {
      throw ApplicationFailure.nonRetryable('the model refused the key (401)', 'WriterRejected');
    };
    const result = await resultOf(w, await start(w));
    expect(result).toEqual({ ended: 'failed', position: 0 });
    expect(w.names()).toEqual(['sequenceState', 'planStep', 'prepareDraft', 'writeDraft', 'finishEnrollment']);
    expect(w.args('finishEnrollment')).toEqual([{ ...w.ref, action: 'fail', reason: 'writeDraft failed: the model refused the key (401)' }]);
  });

  test('a send that fails for good (the message failed) fails the enrollment with the step', async () => {
    const w = new World();
    w.stepCount = 2;
    w.send = () => ({ status: 'failed', error: '550 no such user', hardBounce: true, stoppedEnrollmentIds: [] });
    const result = await resultOf(w, await start(w));
    expect(result).toEqual({ ended: 'failed', position: 1 });
    expect(w.args('finishEnrollment')).toEqual([{ ...w.ref, action: 'fail', reason: 'step 1 could not be sent' }]);
    expect(w.args('planStep').map((a) => a.position)).toEqual([1]);
  });

  test('a child send that fails is started again after a back-off, and then sends', async () => {
    const w = new World();
    w.send = (_id, attempt) => {
      if (attempt === 1) throw ApplicationFailure.nonRetryable('no SMTP settings', 'SendConfiguration');
      return { status: 'sent', providerMessageId: 'provider-2' };
    };
    const handle = await start(w, { recheckMs: HOUR, holdRecheckMs: HOUR, retryInitialIntervalMs: 100 });
    expect(await resultOf(w, handle)).toEqual({ ended: 'completed', position: 1 });
    const child = workflowIds.sendMessage(messageIdOf(w, 1, 1));
    expect(w.names(child)).toEqual(['scheduleSend', 'sendMessage', 'scheduleSend', 'sendMessage']);
    // Between the two children one back-off: retryInitialIntervalMs * 2, below holdRecheckMs and recheckMs (the
    // run's other timers are its waits on a child, recheckMs, absent from the history when the child ended first).
    expect((await timersOf(handle.workflowId)).filter((t) => t !== HOUR)).toEqual([200]);
    expect(w.names(handle.workflowId)).toEqual([
      'sequenceState',
      'planStep',
      'prepareDraft',
      'writeDraft',
      'storeDraft',
      'stepMessageState',
      'stepMessageState',
      'stepMessageState',
      'finishEnrollment',
    ]);
  });

  test('a held send looks again every holdRecheckMs by itself', async () => {
    const w = new World();
    w.mailboxReady = false;
    const handle = await start(w, { recheckMs: HOUR, holdRecheckMs: 200 });
    const child = workflowIds.sendMessage(messageIdOf(w, 1, 1));
    await waitingOn(child, 2);
    w.mailboxReady = true;
    expect(await resultOf(w, handle)).toEqual({ ended: 'completed', position: 1 });
    const timers = await timersOf(child);
    expect(timers.length).toBeGreaterThanOrEqual(2);
    expect(new Set(timers)).toEqual(new Set([200]));
    expect(w.names(child)).toEqual([...timers.map(() => 'scheduleSend'), 'scheduleSend', 'sendMessage']);
  });

  test("a signal to the sequence reaches the send waiting in its child (no wait for the child's holdRecheckMs)", async () => {
    const w = new World();
    w.mailboxReady = false;
    const handle = await start(w, { recheckMs: HOUR, holdRecheckMs: HOUR });
    const child = workflowIds.sendMessage(messageIdOf(w, 1, 1));
    expect(await waitingOn(child, 1)).toEqual([HOUR]);
    w.mailboxReady = true;
    await handle.signal(enrollmentChangedSignal);
    expect(await resultOf(w, handle)).toEqual({ ended: 'completed', position: 1 });
    expect(w.names(child)).toEqual(['scheduleSend', 'scheduleSend', 'sendMessage']);
    expect(await timersOf(child)).toEqual([HOUR]);
  });

  test('an approved draft of a paused enrollment is not sent until the enrollment resumes', async () => {
    const w = new World();
    // Paused while the model writes: the approved draft is stored, and the first look at it finds the enrollment paused.
    w.write = (input) => {
      w.enrollment!.status = 'paused';
      return written(input);
    };
    const handle = await start(w, { recheckMs: HOUR, holdRecheckMs: HOUR });
    expect(await waitingOn(handle.workflowId, 1)).toEqual([HOUR]);
    expect(w.names()).not.toContain('scheduleSend');
    w.enrollment!.status = 'active';
    await handle.signal(enrollmentChangedSignal);
    expect(await resultOf(w, handle)).toEqual({ ended: 'completed', position: 1 });
    expect(w.names(workflowIds.sendMessage(messageIdOf(w, 1, 1)))).toEqual(['scheduleSend', 'sendMessage']);
  });

  test('continue-as-new carries resume: each new run starts at the next step with the delay counted from the step before', async () => {
    const w = new World();
    w.stepCount = 3;
    // The database's current_step never moves here: only `resume` can take a new run past step 1.
    w.prepare = () => ({ skip: 'stub: nothing to send' });
    const handle = await start(w, { maxHistoryEvents: 1 });
    expect(await resultOf(w, handle)).toEqual({ ended: 'completed', position: 3 });
    expect(w.args('planStep').map((a) => a.position)).toEqual([1, 2, 3]);
    expect(w.names()).toEqual([
      'sequenceState',
      'planStep',
      'prepareDraft',
      'sequenceState',
      'planStep',
      'prepareDraft',
      'sequenceState',
      'planStep',
      'prepareDraft',
      'finishEnrollment',
    ]);

    // The first run continued as new with resume { position 2, attempt 1, fromMs }, and the next run planned from that instant.
    const history = await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory();
    const continued = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes;
    expect(continued).toBeTruthy();
    const next = defaultPayloadConverter.fromPayload<SequenceInput>(continued!.input!.payloads![0]!);
    expect(next).toMatchObject({ enrollmentId: w.enrollmentId, maxHistoryEvents: 1, resume: { position: 2, attempt: 1 } });
    expect(w.args('planStep')[1].fromMs).toBe(next.resume!.fromMs);
    expect(w.args('planStep')[2].fromMs).toBeGreaterThanOrEqual(next.resume!.fromMs);
  });
});
