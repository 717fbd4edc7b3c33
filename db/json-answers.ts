import { CompiledQuery, sql, type AliasedRawBuilder, type RawBuilder } from 'kysely';

/**
 * JSON built in PostgreSQL, the one place for it. A list endpoint's answer is a
 * JSON array of rows; built by node it costs parsing every column of every row (a Date per
 * timestamp, a JSON.parse per jsonb) and serialising them again, the largest part of a list
 * request's CPU. Built here, PostgreSQL renders the array and node passes the string through.
 *
 * What PostgreSQL writes must read as what node wrote: the same fields in the same order (the
 * query's select list), and the same formats. Most columns render alike (text, uuid, boolean,
 * integer, jsonb, null); two do not, and are selected through these helpers:
 * - a timestamp: node wrote Date.prototype.toISOString (2026-11-21T09:30:00.123Z); PostgreSQL's JSON
 *   has microseconds and an offset. `isoTimestamp` writes node's form (app.json_ts, migration 0030).
 * - a numeric: node wrote a JS number (0.8); PostgreSQL's JSON has the numeric's text (0.80).
 *   `jsonNumber` casts to double precision, whose shortest form is JavaScript's.
 * A jsonb value (a message's `why`) keeps PostgreSQL's spacing (`{"a": 1}`): the same JSON.
 *
 * The SQL holds no string literal, so readAsUser can still send it in one round trip (db/tenancy.ts).
 * test/api/json-answers.test.ts checks each list built here against the rows node builds.
 */

/** A timestamptz column as the API answers it: toISOString's form, or null. */
export function isoTimestamp(column: string): RawBuilder<string | null> {
  return sql<string | null>`app.json_ts(${sql.ref(column)})`;
}

/** A numeric column as the API answers it: a JSON number in JavaScript's form, or null. */
export function jsonNumber(column: string): RawBuilder<number | null> {
  return sql<number | null>`CAST(${sql.ref(column)} AS double precision)`;
}

/** How the columns that do not render alike are written (the others are selected as they are). */
export interface JsonKinds {
  timestamps: readonly string[];
  numbers?: readonly string[];
}

/**
 * A select list (`table.column` or `column`) for a query built as JSON: each column under its own
 * name, in the same order, the timestamps and numerics through the helpers above.
 */
export function jsonColumns(fields: readonly string[], kinds: JsonKinds): Array<AliasedRawBuilder<unknown, string>> {
  return fields.map((field) => {
    const name = field.slice(field.lastIndexOf('.') + 1);
    if (kinds.timestamps.includes(name)) return isoTimestamp(field).as(name);
    if (kinds.numbers?.includes(name)) return jsonNumber(field).as(name);
    return sql.ref(field).as(name);
  });
}

/**
 * The query's rows as one JSON array, in the query's order: one row, one column `json`, text.
 * array_agg over the sorted subquery keeps its order (no join or sort above it); array_to_json
 * without `pretty` writes no whitespace between the rows.
 */
export function jsonArrayOf(q: CompiledQuery): CompiledQuery<{ json: string }> {
  return {
    ...q,
    sql: `SELECT CAST(coalesce(array_to_json(array_agg(r)), json_build_array()) AS text) AS json FROM (${q.sql}) r`,
  } as CompiledQuery<{ json: string }>;
}
