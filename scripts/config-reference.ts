/**
 * npm run docs:config   writes docs/configuration.md from apps/shared/config.ts
 *
 * One row per variable of `configSchema`: its name, its default (read from the schema, so it cannot
 * drift), what it accepts (the type, the allowed values, the bounds) and its `.describe()` text.
 * test/unit/config-reference.test.ts fails when docs/configuration.md differs from what this builds, or
 * when a variable has no description.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { configSchema } from '../apps/shared/config';

export const REPO_ROOT = path.resolve(__dirname, '..');
export const CONFIG_REFERENCE_FILE = path.join(REPO_ROOT, 'docs', 'configuration.md');

/** The parts of zod 4's internals read here (`schema._zod.def`); the public types do not expose them. */
interface ZodInternals {
  description?: string;
  _zod: {
    def: {
      type: string;
      innerType?: ZodInternals;
      defaultValue?: unknown;
      entries?: Record<string, string>;
      coerce?: boolean;
      checks?: Array<{ _zod: { def: { check: string; value?: unknown; inclusive?: boolean; minimum?: number; format?: string } } }>;
    };
  };
}

export interface ConfigVariable {
  name: string;
  /** The default as written in the table: a code span, or how the variable reads when unset. */
  default: string;
  accepts: string;
  description: string | undefined;
}

const code = (text: string) => `\`${text}\``;

/** The layers of one variable's schema, outermost first (a default or optional wraps the type). */
function layers(schema: ZodInternals): ZodInternals[] {
  const all = [schema];
  for (let s = schema; s._zod.def.innerType; s = s._zod.def.innerType) all.push(s._zod.def.innerType);
  return all;
}

/** A default of the schema as the table shows it; a path inside the repository is shown relative to it. */
function formatDefault(schema: ZodInternals): string {
  const withDefault = layers(schema).find((l) => l._zod.def.type === 'default');
  if (!withDefault) return layers(schema).some((l) => l._zod.def.type === 'optional') ? '(unset)' : '(required)';
  const value = withDefault._zod.def.defaultValue;
  if (typeof value === 'string' && path.isAbsolute(value) && (value === REPO_ROOT || value.startsWith(REPO_ROOT + path.sep))) {
    return code(path.relative(REPO_ROOT, value) || '.');
  }
  return code(String(value));
}

/** What the variable accepts: enum values, a number's kind and bounds, a URL, a minimum length. */
function formatAccepts(schema: ZodInternals): string {
  const all = layers(schema);
  const base = all[all.length - 1]!;
  const def = base._zod.def;
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  const custom = all.some((l) => (l._zod.def.checks ?? []).some((c) => c._zod.def.check === 'custom'));
  let text: string;
  if (def.type === 'enum') {
    text = Object.values(def.entries ?? {})
      .map(code)
      .join(', ');
  } else if (def.type === 'number') {
    const integer = checks.some((c) => c.check === 'number_format' && (c.format === 'safeint' || c.format === 'int32'));
    const low = checks.find((c) => c.check === 'greater_than');
    const high = checks.find((c) => c.check === 'less_than');
    text = integer ? 'integer' : 'number';
    if (low && high && low.inclusive && high.inclusive) text += ` ${low.value}..${high.value}`;
    else {
      if (low) text += ` ${low.inclusive ? '>=' : '>'} ${low.value}`;
      if (high) text += `${low ? ',' : ''} ${high.inclusive ? '<=' : '<'} ${high.value}`;
    }
  } else if (def.type === 'string') {
    const url = checks.some((c) => c.check === 'string_format' && c.format === 'url');
    const min = checks.find((c) => c.check === 'min_length');
    text = url ? 'URL' : min ? (min.minimum === 1 ? 'non-empty string' : `string of ${min.minimum}+ characters`) : 'string';
  } else {
    text = def.type;
  }
  return custom ? `${text} (format checked)` : text;
}

/** Every variable of apps/shared/config.ts, in the order the schema declares them. */
export function configVariables(): ConfigVariable[] {
  return Object.entries(configSchema.shape).map(([name, field]) => {
    const schema = field as unknown as ZodInternals;
    return { name, default: formatDefault(schema), accepts: formatAccepts(schema), description: schema.description };
  });
}

/** A table cell: one line, pipes escaped. */
const cell = (text: string) => text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');

/** docs/configuration.md, as `npm run docs:config` writes it. */
export function configReference(): string {
  const rows = configVariables().map((v) => `| ${code(v.name)} | ${cell(v.default)} | ${cell(v.accepts)} | ${cell(v.description ?? '')} |`);
  return [
    '# Configuration',
    '',
    '<!-- Generated from apps/shared/config.ts by `npm run docs:config`; do not edit by hand. -->',
    '',
    'Every environment variable the API, the worker and the scripts read through `apps/shared/config.ts`,',
    'in the order it declares them. The default is what the variable is when unset; "(unset)" means the',
    'description says what happens without it. A value the schema refuses stops the process at start with',
    'the variable named.',
    '',
    '| variable | default | accepts | meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
    'Secrets (`AUTH_HS256_SECRET`, `INTEGRATION_SECRET_KEY`, `LLM_API_KEY`, database passwords) come from',
    'the environment only; the logger redacts authorization headers and secret fields. `APP_DATABASE_URL`',
    'is refused with a message naming `API_DATABASE_URL` and `WORKER_DATABASE_URL`.',
    '',
    'The development and test launchers read a few more variables of their own: `DEV_IDP_PORT`,',
    '`SMTP_CATCHER_PORT` and `SMTP_CATCHER_HTTP_PORT` ([README](../README.md#running-it)), `TEMPORAL_MODE`',
    "([operations](operations.md), [bench/README.md](../bench/README.md)) and the test suite's",
    '([testing](testing.md)).',
    '',
  ].join('\n');
}

if (require.main === module) {
  writeFileSync(CONFIG_REFERENCE_FILE, configReference());
  console.log(`wrote ${path.relative(process.cwd(), CONFIG_REFERENCE_FILE)}`);
}
