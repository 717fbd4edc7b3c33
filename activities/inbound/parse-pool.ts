import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { InboundDecision } from '../../domain/replies/inbound-decision';
import { NotRfc822Error, type ParsedInbound } from '../providers/mail/parse';

/**
 * Inbound mail is parsed and rule-classified in a worker thread (parse-worker.ts), one message at a
 * time, with a time budget: no message can block the event loop of the process that reads it (the
 * API's push route, the Temporal worker's inbox poll). A message over the budget terminates the thread
 * (a new one starts for the next message) and is a ParseBudgetError: the caller keeps it unprocessed.
 */
export const DEFAULT_PARSE_BUDGET_MS = 10_000;

export interface ParseRequest {
  id: number;
  raw: Uint8Array;
  /** ISO time it was received: the sent time when the Date header is missing. */
  receivedAt: string;
  /** The mailbox's time zone: the sender's when the Date header has no offset. */
  zone: string;
}
export type ParseResponse =
  { id: number; ok: true; parsed: ParsedInbound; decision: InboundDecision } | { id: number; ok: false; notRfc822: boolean; message: string };

export type ParsedMessage = Extract<ParseResponse, { ok: true }>;

export class ParseBudgetError extends Error {
  constructor(budgetMs: number) {
    super(`parsing the message took longer than ${budgetMs} ms: kept unprocessed`);
    this.name = 'ParseBudgetError';
  }
}

/** The worker's entry: the .ts source under tsx (tests, npm run dev), the compiled .js after a build. */
function startWorker(): Worker {
  const ext = path.extname(__filename);
  const entry = path.join(__dirname, `parse-worker${ext}`);
  if (ext !== '.ts') return new Worker(entry);
  const tsx = require.resolve('tsx/cjs');
  return new Worker(`require(${JSON.stringify(tsx)}); require(${JSON.stringify(entry)});`, { eval: true });
}

export class ParsePool {
  private worker: Worker | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;

  constructor(private readonly budgetMs = DEFAULT_PARSE_BUDGET_MS) {}

  /** Parses one message in the thread (queued behind the one in progress). NotRfc822Error, ParseBudgetError or the parser's error. */
  parse(raw: Buffer, receivedAt: Date, zone: string): Promise<ParsedMessage> {
    const run = this.queue.then(() => this.run(raw, receivedAt, zone));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private run(raw: Buffer, receivedAt: Date, zone: string): Promise<ParsedMessage> {
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    return new Promise<ParsedMessage>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const kill = (err: Error) => {
        done();
        if (this.worker === worker) this.worker = null;
        void worker.terminate();
        reject(err);
      };
      const timer = setTimeout(() => kill(new ParseBudgetError(this.budgetMs)), this.budgetMs);
      const onMessage = (res: ParseResponse) => {
        if (res.id !== id) return;
        done();
        if (res.ok) resolve(res);
        else reject(res.notRfc822 ? new NotRfc822Error(res.message) : new Error(`the message could not be parsed: ${res.message}`));
      };
      const onError = (err: Error) => kill(new Error(`the parse thread failed: ${err.message}`));
      const onExit = (code: number) => kill(new Error(`the parse thread exited (${code})`));
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      const req: ParseRequest = { id, raw: new Uint8Array(raw), receivedAt: receivedAt.toISOString(), zone };
      worker.postMessage(req);
    });
  }

  private spawn(): Worker {
    const w = startWorker();
    w.unref(); // an idle parse thread never keeps the process alive
    return w;
  }

  /** Starts the thread now (at process start), so the first message does not wait for it. */
  warm(): this {
    this.worker ??= this.spawn();
    return this;
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

/** The process's pool: every inbound message of this process is parsed by it. */
let shared: ParsePool | null = null;
export function sharedParsePool(): ParsePool {
  return (shared ??= new ParsePool());
}
