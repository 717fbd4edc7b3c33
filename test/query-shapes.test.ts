import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import type { DB } from '../db/database';
import { compiledPerShape } from '../db/query-shapes';
import { listMessagesJson, type MessageFilter } from '../db/queries/messages';
import { listSignalsJson, type SignalFilter } from '../db/queries/signals';
import type { Reader } from '../db/tenancy';

// Compiles only: a Kysely without a connection.
const qb = new Kysely<DB>({
  dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new PostgresIntrospector(db), createQueryCompiler: () => new PostgresQueryCompiler() },
}) as unknown as Reader;

interface Filter {
  organizationId: string;
  status?: string;
  archived?: boolean;
  limit: number;
}
const build = (q: Reader, f: Filter) => {
  let s = q.selectFrom('signals').select(['id', 'title']).where('organization_id', '=', f.organizationId);
  if (f.status) s = s.where('status', '=', f.status);
  if (f.archived) s = s.where('processed_at', 'is not', null);
  return s.limit(f.limit);
};

test('each call answers what compiling it afresh answers, whatever shape came before (booleans are part of the shape)', () => {
  const cached = compiledPerShape(build);
  const filters: Filter[] = [
    { organizationId: 'o-1', limit: 50 },
    { organizationId: 'o-2', status: 'ready', limit: 10 },
    { organizationId: 'o-3', archived: true, limit: 5 },
    { organizationId: 'o-4', archived: false, limit: 7 },
    { organizationId: 'o-5', status: 'scored', archived: true, limit: 1 },
    { organizationId: 'o-6', limit: 20 },
    { organizationId: 'o-7', status: 'ignored', archived: false, limit: 3 },
  ];
  for (const f of [...filters, ...filters.reverse()]) {
    const fresh = build(qb, f).compile();
    const got = cached(qb, f).compile();
    expect({ sql: got.sql, parameters: got.parameters }).toEqual({ sql: fresh.sql, parameters: fresh.parameters });
  }
});

test('a parameter computed from a field (not the value itself) is refused at the first call of its shape', () => {
  const computed = compiledPerShape((q: Reader, f: { title: string }) => q.selectFrom('signals').select('id').where('title', 'ilike', `%${f.title}%`));
  expect(() => computed(qb, { title: 'warmtepomp' }).compile()).toThrow(/computed from a filter field/);
});

test('the two lists built per shape match their fresh compilation: signals (title search escaped) and messages', () => {
  const signals: SignalFilter[] = [
    { organizationId: 'a', limit: 50 },
    { organizationId: 'b', limit: 5, q: '50%_off\\' },
    { organizationId: 'c', limit: 5, q: 'warmtepomp', status: 'ready', before: 'x' },
    { organizationId: 'd', limit: 9, q: 'school' },
  ];
  for (const f of signals) {
    const got = listSignalsJson(qb, f).compile();
    expect(got.parameters).toContain(f.organizationId);
    if (f.q) expect(got.parameters).toContain(`%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    expect(got.parameters).toContain(f.limit);
  }
  expect(listSignalsJson(qb, signals[1]!).compile().parameters).toContain('%50\\%\\_off\\\\%');
  const messages: MessageFilter[] = [
    { organizationId: 'm1', status: 'pending_approval', limit: 50 },
    { organizationId: 'm2', limit: 3, direction: 'inbound', campaignId: 'c2' },
    { organizationId: 'm3', status: 'sent', limit: 4 },
  ];
  for (const f of messages) {
    const got = listMessagesJson(qb, f).compile();
    expect(got.parameters).toEqual(expect.arrayContaining(Object.values(f)));
    expect(got.parameters).toContain('paused'); // a constant of the query stays as it is
  }
});
