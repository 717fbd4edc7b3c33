import type { CompiledQuery } from 'kysely';
import type { Reader } from './tenancy';

/**
 * A list query compiled once per shape of its filter, then reused with each call's values.
 *
 * Building and compiling a list query with kysely took about 0.07 ms of the API's CPU per request
 * (bench/api: a tenth of a list request), for SQL that depends only on which filter fields are
 * present. So the first call of each shape builds the query with placeholder values (a unique marker
 * string per field), compiles it, and learns which parameter is which field; later calls of that
 * shape take the SQL as it is and put their own values in the parameters.
 *
 * The rule for `build`: it may branch on whether a field is present (`if (f.status)`), never on a
 * field's value, and passes each value to the query unchanged (a value computed from a field, such as
 * a LIKE pattern, is computed before: put it in the filter as a field of its own). A parameter that
 * holds a marker but is not exactly one breaks that rule and throws at the first call of its shape,
 * so a test of each shape finds it. Booleans are part of the shape (their value, not a marker).
 */
const MAX_SHAPES = 256;

export function compiledPerShape<F extends object>(build: (qb: Reader, f: F) => { compile(): CompiledQuery<unknown> }) {
  const shapes = new Map<string, { compiled: CompiledQuery<unknown>; slots: Array<{ field: string } | { value: unknown }> }>();
  return (qb: Reader, f: F): { compile(): CompiledQuery<unknown> } => ({
    compile() {
      const values = f as Record<string, unknown>;
      const fields = Object.keys(f).filter((k) => values[k] !== undefined);
      // Only plain values take part: a builder tests presence by truthiness (`if (f.status)`), so an empty
      // string, a 0, a null, an array or an object is compiled afresh rather than taken for present.
      if (!fields.every((k) => plainValue(values[k]))) return build(qb, f).compile();
      const shape = fields.map((k) => (typeof values[k] === 'boolean' ? `${k}=${values[k]}` : k)).join(',');
      let compiled = shapes.get(shape);
      if (!compiled && shapes.size >= MAX_SHAPES) return build(qb, f).compile(); // bounded: past that, compiled each time
      if (!compiled) {
        const marker = (i: number) => `\u0001shape-field-${i}\u0001`;
        const probe = Object.fromEntries(fields.map((k, i) => [k, typeof values[k] === 'boolean' ? values[k] : marker(i)]));
        const q = build(qb, probe as F).compile();
        const slots = q.parameters.map((p) => {
          if (typeof p !== 'string' || !p.includes('\u0001')) return { value: p };
          const i = fields.findIndex((_k, j) => p === marker(j));
          if (i < 0)
            throw new Error(`compiledPerShape: a parameter is computed from a filter field (${JSON.stringify(p)}); compute it before and pass it as a field`);
          return { field: fields[i]! };
        });
        // A field written into the SQL text itself (sql.raw, sql.lit) would send a marker to PostgreSQL.
        if (q.sql.includes('\u0001')) throw new Error('compiledPerShape: a filter field is written into the SQL text; pass it as a parameter');
        compiled = { compiled: q, slots };
        shapes.set(shape, compiled);
      }
      const parameters = compiled.slots.map((s) => ('field' in s ? values[s.field] : s.value));
      return { ...compiled.compiled, parameters };
    },
  });
}

/** A value the shape can stand for by a marker: a non-empty string, a non-zero number, a boolean (by its value) or a Date. */
function plainValue(v: unknown): boolean {
  return (typeof v === 'string' && v !== '') || (typeof v === 'number' && v !== 0) || typeof v === 'boolean' || v instanceof Date;
}

/**
 * A list endpoint's query, built from its filter's values (`values` computes what derives from the
 * filter, a LIKE pattern say, before the query is built, as compiledPerShape's rule asks): `perShape`
 * compiles it once per shape of the filter, `afresh` on every call (what each shape's reuse must equal;
 * test/unit/query-shapes.test.ts).
 */
export function listPerShape<F extends object, V extends object, Q extends { compile(): CompiledQuery<unknown> }>(
  build: (qb: Reader, v: V) => Q,
  values: (f: F) => V,
) {
  const perShape = compiledPerShape(build);
  return {
    perShape: (qb: Reader, f: F) => perShape(qb, values(f)),
    afresh: (qb: Reader, f: F) => build(qb, values(f)),
  };
}
