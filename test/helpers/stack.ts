import { Pool } from 'pg';
import type { ApiDeps } from '../../apps/api/deps';
import { createDb, type DB } from '../../db/pool';
import { startApi, type TestApi } from './api';
import { startSmtpServer, type TestSmtpServer } from './smtp-server';
import { testEnv } from './tokens';

/**
 * What a test file asks of the run's stack (started once by test/setup/global-setup.ts), started in
 * `beforeAll` and stopped in `afterAll`, newest first, also when a later piece failed to start.
 */
export interface StackOptions {
  /** The real API in-process (test/helpers/api.ts), with these dependencies replaced when an object. */
  api?: boolean | Partial<ApiDeps>;
  /** A pool of the database's owner (no row-level security): seeding and checking what the API cannot. */
  owners?: boolean;
  /** The workers' database role, for calling activities and queries as a worker does. */
  workerDb?: boolean;
  /** A real SMTP server on 127.0.0.1 that records what it receives. */
  smtp?: boolean | Parameters<typeof startSmtpServer>[0];
}

export interface Stack {
  readonly api: TestApi;
  readonly owners: Pool;
  readonly workerDb: DB;
  readonly smtp: TestSmtpServer;
}

/**
 * One call instead of a file's preamble, at its top:
 *
 *     const { api, owners } = useStack({ api: true, owners: true });
 *
 * Each piece is usable inside the file's tests and hooks (it stands for what `beforeAll` starts); a piece the
 * file did not ask for throws when used, naming the option.
 */
export function useStack(opts: StackOptions): Stack {
  const started: Partial<Record<'api' | 'owners' | 'workerDb' | 'smtp', unknown>> = {};
  const stops: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    if (opts.owners) {
      const pool = new Pool({ connectionString: testEnv('TEST_OWNER_DB_URL'), max: 2 });
      started.owners = pool;
      stops.push(() => pool.end());
    }
    if (opts.workerDb) {
      const db = createDb(testEnv('TEST_WORKER_DB_URL'), 2);
      started.workerDb = db;
      stops.push(() => db.destroy());
    }
    if (opts.smtp) {
      const smtp = await startSmtpServer(opts.smtp === true ? {} : opts.smtp);
      started.smtp = smtp;
      stops.push(() => smtp.close());
    }
    if (opts.api) {
      const api = await startApi(opts.api === true ? {} : opts.api);
      started.api = api;
      stops.push(() => api.close());
    }
  });

  afterAll(async () => {
    const errors: unknown[] = [];
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => errors.push(err));
    if (errors.length) throw errors[0];
  });

  const piece = <T extends object>(name: keyof typeof started): T =>
    lateBound<T>(() => {
      const value = started[name];
      if (value === undefined)
        throw new Error(`useStack: ${name} was not asked for (useStack({ ${name}: true })) or is not started yet (use it inside a test or a hook)`);
      return value as T;
    });
  return { api: piece<TestApi>('api'), owners: piece<Pool>('owners'), workerDb: piece<DB>('workerDb'), smtp: piece<TestSmtpServer>('smtp') };
}

/**
 * An object that stands for one made later: every property read, write and `in` goes to what `resolve`
 * answers at that moment, and its methods run bound to it (so a Pool's or a Kysely instance's own
 * fields are reached as usual).
 */
function lateBound<T extends object>(resolve: () => T): T {
  return new Proxy({} as T, {
    get(_, prop) {
      const target = resolve();
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    set: (_, prop, value) => Reflect.set(resolve(), prop, value),
    has: (_, prop) => Reflect.has(resolve(), prop),
    getPrototypeOf: () => Reflect.getPrototypeOf(resolve()),
  });
}
