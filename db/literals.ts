import { escapeLiteral } from 'pg';

/** pg's own serialisation of a parameter (a Date as its local time with the offset), so a literal reads as the parameter would have. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- pg/lib/utils has no type declarations
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

/**
 * A query's parameters written into its SQL as literals, for the statements that go in one round trip
 * with their transaction's opening (db/tenancy.ts, db/pool.ts). Only where that is plainly safe: SQL
 * made of identifiers, keywords and $n placeholders (no string literal, comment or semicolon), and
 * parameters that are plain values, quoted and escaped as pg's escapeLiteral does and untyped like the
 * parameters pg sends, so PostgreSQL resolves their types the same way. The escaping holds in UTF-8,
 * which every connection speaks (pg's startup sends client_encoding=UTF8; test/platform/read-as-user.test.ts).
 * A literal's value shows in the server's log of a failing statement and in pg_stat_activity, where a
 * bound parameter's would not.
 */
const SAFE_SQL = /^(?:[A-Za-z0-9_.,()<>=!*+\- \t\r\n]|(?<![A-Za-z0-9_"])\$\d+(?![A-Za-z0-9_$])|"[A-Za-z_][A-Za-z0-9_]*")*$/;
/**
 * Two placeholders with only whitespace holding a line break between them: PostgreSQL joins two string
 * constants written so into one, where the bound parameters would have been a syntax error.
 */
const JOINED_CONSTANTS = /\$\d+[ \t\r]*\n[ \t\r\n]*\$\d+/;

/** The highest $n the SQL uses (Infinity for a $0, which no parameter fills). */
export function highestPlaceholder(text: string): number {
  let highest = 0;
  for (const m of text.matchAll(/\$(\d+)/g)) highest = Math.max(highest, Number(m[1]) < 1 ? Infinity : Number(m[1]));
  return highest;
}

/**
 * The SQL holds only identifiers, keywords and $n placeholders (no string literal, comment or
 * semicolon), each placeholder a token of its own (`E$1` or `int4$1` would read otherwise as a literal).
 */
export function sqlInlinable(text: string): boolean {
  return SAFE_SQL.test(text) && !text.includes('--') && !JOINED_CONSTANTS.test(text);
}

/** The parameters as escaped literals (the SQL already known inlinable), or undefined when a value is not plainly safe or their number is not the statement's. */
export function parameterLiterals(parameters: readonly unknown[], highestPlaceholder: number): string[] | undefined {
  const literals: string[] = [];
  for (const v of parameters) {
    let text: string;
    if (typeof v === 'string') text = v;
    else if (typeof v === 'number' && Number.isFinite(v)) text = String(v);
    else if (typeof v === 'boolean') text = String(v);
    else if (v instanceof Date && !Number.isNaN(v.getTime())) text = String(prepareValue(v));
    else if (v === null) {
      literals.push('NULL');
      continue;
    } else return undefined;
    if (text.includes('\0')) return undefined; // PostgreSQL refuses NUL either way; let it say so as usual
    literals.push(escapeLiteral(text));
  }
  // Exactly the statement's parameters, as EXECUTE and the bound query take them.
  return highestPlaceholder === literals.length ? literals : undefined;
}

/** The SQL with each $n replaced by its literal. */
export function substitute(sql: string, literals: readonly string[]): string {
  return sql.replace(/\$(\d+)/g, (_m, n: string) => literals[Number(n) - 1]!);
}
