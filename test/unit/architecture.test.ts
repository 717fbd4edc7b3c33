import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The layers hold: every import (type imports and re-exports included) goes to the importer's own
 * layer or one below it, and no module imports itself back through others. The order, lowest first:
 * the pure domain; the database queries; the providers (clients of outside parties); the deployment
 * configuration; the activities; the workflows; the API and worker processes; scripts, benches and tests.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const LAYERS: ReadonlyArray<readonly [string, (file: string) => boolean]> = [
  ['domain', (f) => f.startsWith('domain/')],
  ['db', (f) => f.startsWith('db/')],
  ['providers', (f) => f.startsWith('activities/providers/')],
  ['config', (f) => f === 'apps/shared/config.ts'],
  ['activities', (f) => f.startsWith('activities/')],
  ['workflows', (f) => f.startsWith('workflows/')],
  ['apps', (f) => f.startsWith('apps/')],
  ['tools', (f) => /^(scripts|bench|test)\//.test(f)],
];
/** The packages the domain may use: pure computation, no I/O. */
const PURE_PACKAGES = new Set(['luxon', 'zod', 'tldts', 'libphonenumber-js', 'date-holidays', 'countries-and-timezones', 'chrono-node', 'node:crypto']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === 'node_modules' || name === 'fixtures' || name === 'histories') return [];
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

function layerOf(file: string): number {
  const i = LAYERS.findIndex(([, has]) => has(file));
  if (i === -1) throw new Error(`${file} is in no layer`);
  return i;
}

/** Every module specifier a file imports or re-exports from (static imports; `import type` included). */
function specifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false);
  const out: string[] = [];
  source.forEachChild((node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push(node.moduleSpecifier.text);
    }
  });
  return out;
}

function resolveLocal(from: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (existsSync(candidate)) return path.relative(ROOT, candidate);
  return null;
}

interface Graph {
  edges: Map<string, string[]>;
  packages: Map<string, string[]>;
}

function importGraph(): Graph {
  const files = ['domain', 'db', 'activities', 'workflows', 'apps', 'scripts', 'bench', 'test'].flatMap((d) => sourceFiles(path.join(ROOT, d)));
  const edges = new Map<string, string[]>();
  const packages = new Map<string, string[]>();
  for (const full of files) {
    const file = path.relative(ROOT, full);
    const specs = specifiers(full);
    edges.set(
      file,
      specs.filter((s) => s.startsWith('.')).flatMap((s) => resolveLocal(full, s) ?? []),
    );
    packages.set(
      file,
      specs.filter((s) => !s.startsWith('.')),
    );
  }
  return { edges, packages };
}

/** The strongly connected components of more than one module (Tarjan): each is an import circle. */
function circles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

const graph = importGraph();

test('no import circle, type imports included', () => {
  expect(circles(graph.edges)).toEqual([]);
});

test('every import goes to its own layer or one below it', () => {
  const against: string[] = [];
  for (const [file, targets] of graph.edges) {
    for (const target of targets) {
      if (layerOf(target) > layerOf(file)) against.push(`${file} (${LAYERS[layerOf(file)]![0]}) -> ${target} (${LAYERS[layerOf(target)]![0]})`);
    }
  }
  expect(against).toEqual([]);
});

test('the domain imports only the domain and pure packages', () => {
  const impure = [...graph.packages]
    .filter(([file]) => file.startsWith('domain/'))
    .flatMap(([file, pkgs]) => pkgs.filter((p) => !PURE_PACKAGES.has(p)).map((p) => `${file} -> ${p}`));
  expect(impure).toEqual([]);
});

test('the checks see a circle and an edge against the order when there is one', () => {
  const edges = new Map([
    ['domain/a.ts', ['domain/b.ts']],
    ['domain/b.ts', ['domain/c.ts']],
    ['domain/c.ts', ['domain/a.ts']],
    ['db/d.ts', []],
  ]);
  expect(circles(edges)).toEqual([['domain/a.ts', 'domain/b.ts', 'domain/c.ts']]);
  expect(layerOf('domain/a.ts') < layerOf('db/d.ts') && layerOf('activities/providers/x.ts') < layerOf('activities/x.ts')).toBe(true);
});
