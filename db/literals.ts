import { escapeLiteral } from 'pg';

/** pg's own serialisation of a parameter (a Date as its local time with the offset), so a literal reads as the parameter would have. */
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

/**
 * A query's parameters written into its SQL as literals, for the statements that go in one round trip
 * with their transaction's opening (db/tenancy.ts, db/pool.ts). Only where that is plainly safe: SQL
 * made of identifiers, keywords and $n placeholders (no string literal, comment or semicolon), and
 * parameters that are plain values, quoted and escaped as pg's escapeLiteral does and untyped like the
 * parameters pg sends, so PostgreSQL resolves their types the same way.
 */
const SAFE_SQL = /^(?:[A-Za-z0-9_.,()<>=!*+\-\s]|\$\d+|"[A-Za-z_][A-Za-z0-9_]*")*$/;

/** The highest $n the SQL uses (Infinity for a $0, which no parameter fills). */
export function highestPlaceholder(text: string): number {
  let highest = 0;
  for (const m of text.matchAll(/\$(\d+)/g)) highest = Math.max(highest, Number(m[1]) < 1 ? Infinity : Number(m[1]));
  return highest;
}

/** The SQL holds only identifiers, keywords and $n placeholders (no string literal, comment or semicolon). */
export function sqlInlinable(text: string): boolean {
  return SAFE_SQL.test(text) && !text.includes('--');
}

/** The parameters as escaped literals (the SQL already known inlinable), or undefined when a value is not plainly safe. */
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
  return highestPlaceholder <= literals.length ? literals : undefined;
}

/** The SQL with each $n replaced by its literal. */
export function substitute(sql: string, literals: readonly string[]): string {
  return sql.replace(/\$(\d+)/g, (_m, n: string) => literals[Number(n) - 1]!);
}
