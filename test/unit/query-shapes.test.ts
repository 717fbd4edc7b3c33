import { CompiledQuery, DummyDriver, Kysely, sql, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import type { DB } from '../../db/database';
import { compiledPerShape } from '../../db/query-shapes';
import { listCompaniesJson, listCompaniesJsonAfresh, type CompanyFilter } from '../../db/queries/companies';
import { listMessagesJson, listMessagesJsonAfresh, type MessageFilter } from '../../db/queries/messages';
import { listSignalsJson, listSignalsJsonAfresh, type SignalFilter } from '../../db/queries/signals';
import type { Reader } from '../../db/tenancy';

// Compiles only: a Kysely without a connection.
const qb = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
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

test('the JSON lists answer what a fresh compilation of their shape answers (signals with an escaped title search, messages, companies, the before cursor)', () => {
  const same = (got: CompiledQuery<unknown>, want: CompiledQuery<unknown>) =>
    expect({ sql: got.sql, parameters: got.parameters }).toEqual({ sql: want.sql, parameters: want.parameters });
  const signals: SignalFilter[] = [
    { organizationId: 'a', limit: 50 },
    { organizationId: 'b', limit: 5, q: '50%_off\\' },
    { organizationId: 'c', limit: 5, q: 'warmtepomp', status: 'ready', before: 'x' },
    { organizationId: 'd', limit: 9, q: 'school' },
    { organizationId: 'e', limit: 7, projectId: 'p', before: 'y' },
    { organizationId: 'f', limit: 3, status: '' }, // not a plain value: compiled afresh, the status left out
  ];
  for (const f of [...signals, ...[...signals].reverse()]) {
    same(listSignalsJson(qb, f).compile(), listSignalsJsonAfresh(qb, f).compile());
  }
  expect(listSignalsJson(qb, signals[1]!).compile().parameters).toContain('%50\\%\\_off\\\\%');
  const messages: MessageFilter[] = [
    { organizationId: 'm1', status: 'pending_approval', limit: 50 },
    { organizationId: 'm2', limit: 3, direction: 'inbound', campaignId: 'c2' },
    { organizationId: 'm3', status: 'sent', limit: 4, before: 'z' },
    { organizationId: 'm4', status: 'pending_approval', limit: 20 },
  ];
  for (const f of [...messages, ...[...messages].reverse()]) {
    same(listMessagesJson(qb, f).compile(), listMessagesJsonAfresh(qb, f).compile());
  }
  const companies: CompanyFilter[] = [
    { organizationId: 'c1', limit: 50 },
    { organizationId: 'c2', limit: 5, q: 'Warmtepomp B.V. 50%_off' },
    { organizationId: 'c3', limit: 5, kvkNumber: '12345678', before: 'x' },
    { organizationId: 'c4', limit: 9, domain: 'bouw.example', q: 'bouw' },
  ];
  for (const f of [...companies, ...[...companies].reverse()]) {
    same(listCompaniesJson(qb, f).compile(), listCompaniesJsonAfresh(qb, f).compile());
  }
});

test('a field written into the SQL text is refused rather than sent with its marker', () => {
  const raw = compiledPerShape((q: Reader, f: { column: string }) => q.selectFrom('signals').select(sql.ref(f.column).as('x')));
  expect(() => raw(qb, { column: 'title' }).compile()).toThrow(/written into the SQL text/);
});
