/**
 * Contact import: what a CSV file's header means and how one record becomes the fields
 * of a contact and its company. Pure: the API parses the file (csv-parse), the import activity
 * validates each row with the schemas of POST /contacts and POST /companies.
 */

/** The fields a row may carry, named as the columns of the CSV import (docs/features/companies-and-compliance.md). */
export const IMPORT_FIELDS = [
  'full_name',
  'first_name',
  'last_name',
  'email',
  'title',
  'phone',
  'linkedin_url',
  'company',
  'domain',
  'website',
  'kvk_number',
  'country',
  'timezone',
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];
export type ImportRowFields = Partial<Record<ImportField, string>>;

/** Why a row was left out. */
export const IMPORT_SKIP_REASONS = ['suppressed', 'erased', 'invalid_email', 'duplicate_in_file', 'missing_name'] as const;
export type ImportSkipReason = (typeof IMPORT_SKIP_REASONS)[number];

/** `skipped` and `errors` keep the first this many. */
export const IMPORT_LIST_LIMIT = 1000;

/** Header spellings beyond the field names themselves. */
const ALIASES: Record<string, ImportField> = { name: 'full_name' };

/**
 * The separator of a file from its header line: `;` when the line has more semicolons than commas
 * outside quotes, else `,`. One pass over the line (linear).
 */
export function detectDelimiter(headerLine: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/** The header row: each column's field (null: ignored) and the unknown column names, once each. */
export function mapHeader(header: readonly string[]): { columns: Array<ImportField | null>; unknown: string[] } {
  const seen = new Set<ImportField>();
  const unknown: string[] = [];
  const columns = header.map((raw) => {
    const key = raw
      .replace(/^\uFEFF/, '')
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_');
    const field = (IMPORT_FIELDS as readonly string[]).includes(key) ? (key as ImportField) : ALIASES[key];
    if (!field || seen.has(field)) {
      if (!unknown.includes(raw.trim())) unknown.push(raw.trim());
      return null;
    }
    seen.add(field);
    return field;
  });
  return { columns, unknown };
}

/** One record's fields: trimmed, empty ones left out, `first_name` + `last_name` as the full name when it has none. */
export function rowFields(columns: ReadonlyArray<ImportField | null>, record: readonly string[]): ImportRowFields {
  const out: ImportRowFields = {};
  columns.forEach((field, i) => {
    const value = record[i]?.trim();
    if (field && value) out[field] = value;
  });
  if (!out.full_name && (out.first_name || out.last_name)) out.full_name = [out.first_name, out.last_name].filter(Boolean).join(' ');
  delete out.first_name;
  delete out.last_name;
  return out;
}

/** Whether the header names a person at all (full_name, name, or first_name/last_name). */
export function headerNamesPerson(columns: ReadonlyArray<ImportField | null>): boolean {
  return columns.some((c) => c === 'full_name' || c === 'first_name' || c === 'last_name');
}

/** The key that finds the same person twice in a file: the lowered, trimmed address. */
export function emailKey(email: string | undefined): string | null {
  const v = email?.trim().toLowerCase();
  return v ? v : null;
}

/** The row number a person sees: the header is row 1, the first data record row 2. */
export function displayRow(n: number): number {
  return n + 2;
}
