import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { NextFunction, Request, Response, Router } from 'express';
import ts from 'typescript';
import { z } from 'zod';
import { bind, type Handler } from '../../apps/api/bind';
import { roles, type Operation } from '../../apps/api/contract';
import { notFound, ProblemError } from '../../apps/api/errors';
import { parseBody, parseQuery } from '../../apps/api/validate';

/**
 * An operation's role, body and query are written once, in its operation
 * (apps/api/routes/<feature>.schemas.ts): handlers read them from `call` (apps/api/bind.ts). The
 * route files are read as source: no parseBody or parseQuery, no WRITE, and no role named in a
 * handler but where a handler needs another role than its operation's for a reason of its own.
 */
const ROUTES = path.resolve(__dirname, '..', '..', 'apps', 'api', 'routes');

/** The roles a handler names itself, by file and operation, how often, and why. */
const EXCEPTIONS: ReadonlyArray<{ file: string; operation: string; role: string; count: number; why: string }> = [
  {
    file: 'organizations.ts',
    operation: 'addOrganizationMember',
    role: 'owner',
    count: 3,
    why: 'an admin may add members (the operation), but only an owner grants or changes the owner role',
  },
  { file: 'organizations.ts', operation: 'createOrganization', role: 'owner', count: 1, why: 'no check: the answer says the creator is the owner' },
];

const ROLE_NAMES = new Set<string>(roles);

/** The operation whose handler a node is in: the id `serve('id', ...)` names, or '' outside any. */
function operationOf(node: ts.Node): string {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'serve') {
      const first = n.arguments[0];
      if (first && ts.isStringLiteral(first)) return first.text;
    }
  }
  return '';
}

/** What each route file says that its operations should: parseBody or parseQuery, WRITE, and the roles it names (by operation). */
function findings(file: string, source: string): { forbidden: string[]; roles: Map<string, number> } {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const forbidden: string[] = [];
  const named = new Map<string, number>();
  const at = (node: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && ['parseBody', 'parseQuery', 'WRITE'].includes(node.text)) forbidden.push(`${at(node)} ${node.text}`);
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && ROLE_NAMES.has(node.text)) {
      const key = `${operationOf(node)} '${node.text}'`;
      named.set(key, (named.get(key) ?? 0) + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { forbidden, roles: named };
}

const routeFiles = readdirSync(ROUTES)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.schemas.ts'))
  .sort();

test('route files take the body and query from call, never parseBody or parseQuery, and no role from WRITE', () => {
  expect(routeFiles.length).toBeGreaterThan(20);
  const forbidden = routeFiles.flatMap((f) => findings(f, readFileSync(path.join(ROUTES, f), 'utf8')).forbidden);
  expect(forbidden).toEqual([]);
});

test('a handler names a role only where it needs another than its operation’s, each listed here with why', () => {
  const named = routeFiles.flatMap((f) => [...findings(f, readFileSync(path.join(ROUTES, f), 'utf8')).roles].map(([key, n]) => `${f} ${key} x${n}`));
  expect(named.sort()).toEqual(EXCEPTIONS.map((e) => `${e.file} ${e.operation} '${e.role}' x${e.count}`).sort());
});

test('the check sees a role literal, WRITE and parseBody in a handler', () => {
  const source = `serve('createSource', async (req, res, call) => {
    const body = parseBody(createSourceBody, req);
    await withRole(db, req, body.organizationId, WRITE, async () => undefined);
    await readWithRole(db, req, body.organizationId, 'viewer', (qb) => list(qb));
  });`;
  const { forbidden, roles: named } = findings('sources.ts', source);
  expect(forbidden).toEqual(['sources.ts:2 parseBody', 'sources.ts:3 WRITE']);
  expect([...named]).toEqual([["createSource 'viewer'", 1]]);
});

// serve's call --------------------------------------------------------------------------------------
const body = z.object({ name: z.string() }).strict();
const query = z.object({ limit: z.coerce.number().int() }).strict();
const counted = z.object({ count: z.number() }).strict();
const OPS = [
  { id: 'make', method: 'post', path: '/things/{thingId}', tag: 'Sources', summary: 'Make', role: 'member', body, answer: z.object({}) },
  { id: 'list', method: 'get', path: '/things', tag: 'Sources', summary: 'List', role: 'viewer', query, answer: z.object({}) },
  { id: 'count', method: 'post', path: '/things/{thingId}', tag: 'Sources', summary: 'Count', role: 'admin', body: counted, answer: z.object({}) },
] as const satisfies readonly Operation[];

type Step = (req: Request, res: Response, next: NextFunction) => unknown;
type Id = (typeof OPS)[number]['id'];

/** The steps serve mounts for an operation, on a router that records them. */
function mounted<I extends Id>(id: I, ...handlers: Array<Handler<Extract<(typeof OPS)[number], { id: I }>>>): Step[] {
  const steps: Step[] = [];
  const record = (_path: string, ...s: Step[]) => void steps.push(...s);
  bind({ get: record, post: record } as unknown as Router, OPS)(id, ...handlers);
  return steps;
}

const request = (fields: Partial<Request>) => fields as Request;
const res = {} as Response;

test('call carries the operation’s role; body and query are parsed when first read, once per request', () => {
  const seen: unknown[] = [];
  const spy = jest.spyOn(body, 'safeParse');
  const [first, second] = mounted(
    'make',
    (_req, _res, call) => {
      seen.push(call.role);
      call();
    },
    (_req, _res, call) => {
      seen.push(call.body, call.body);
    },
  );
  const req = request({ body: { name: 'a' } });
  const next = jest.fn();
  first!(req, res, next);
  expect(spy).not.toHaveBeenCalled();
  expect(next).toHaveBeenCalledWith();
  second!(req, res, next);
  expect(seen).toEqual(['member', { name: 'a' }, { name: 'a' }]);
  expect(spy).toHaveBeenCalledTimes(1);
  spy.mockRestore();
});

const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err as ProblemError;
  }
  throw new Error('nothing thrown');
};

test('a request passed on to another operation’s route is parsed by that operation’s schema, not given the first one’s parse', () => {
  const [make] = mounted('make', (_req, _res, call) => {
    void call.body;
    call('route');
  });
  const [count] = mounted('count', (_req, _res, call) => call.body);
  const req = request({ body: { name: 'a' } });
  make!(req, res, jest.fn());
  expect(thrown(() => count!(req, res, jest.fn())).code).toBe('VALIDATION_FAILED');
});

test('an invalid body or query is the problem parseBody and parseQuery throw, when it is read and not before', () => {
  const req = request({ body: { name: 1, extra: true } });
  const [unseen] = mounted('make', () => {
    throw notFound('thing');
  });
  expect(thrown(() => unseen!(req, res, jest.fn())).code).toBe('NOT_FOUND');

  const [make] = mounted('make', (_req, _res, call) => call.body);
  const got = thrown(() => make!(req, res, jest.fn()));
  expect(got).toBeInstanceOf(ProblemError);
  const expected = thrown(() => parseBody(body, req));
  expect([got.code, got.message, got.extra]).toEqual([expected.code, expected.message, expected.extra]);

  const [list] = mounted('list', (_req, _res, call) => call.query);
  const bad = request({ query: { limit: 'many' } });
  const problem = thrown(() => list!(bad, res, jest.fn()));
  const expectedQuery = thrown(() => parseQuery(query, bad));
  expect([problem.code, problem.message, problem.extra]).toEqual([expectedQuery.code, expectedQuery.message, expectedQuery.extra]);
  expect(list!(request({ query: { limit: '5' } }), res, jest.fn())).toEqual({ limit: 5 });
});

test('Express middleware in an operation’s chain gets call as its next', () => {
  const middleware = jest.fn((_req: Request, _res: Response, next: NextFunction) => next('route'));
  const [step] = mounted('list', middleware);
  const next = jest.fn();
  step!(request({ query: {} }), res, next);
  expect(next).toHaveBeenCalledWith('route');
});

test('serve refuses an id its feature lacks (and the compiler does too)', () => {
  // @ts-expect-error: not an operation of OPS
  expect(() => mounted('remove', () => undefined)).toThrow('no operation remove among make, list, count');
});
