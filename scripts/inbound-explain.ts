import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { decideInbound } from '../domain/replies/inbound-decision';
import { parseInbound } from '../activities/providers/mail/parse';

/**
 * npm run -s inbound:explain -- <file or folder>...: one JSON line per raw RFC 822 message, through the
 * decision the worker takes (domain/replies/inbound-decision.ts): {file, kind, reason, status,
 * recipient, original_message_id, error}. A folder is read whole (every file under it, sorted). A file
 * that is not a message gets `error` and no kind; the command never stops part-way and exits 0.
 */
const MAX_FILE_BYTES = 25 * 1024 * 1024;

function filesUnder(p: string): string[] {
  const st = statSync(p, { throwIfNoEntry: false });
  if (!st) return [p];
  if (!st.isDirectory()) return [p];
  return readdirSync(p)
    .sort()
    .flatMap((name) => filesUnder(path.join(p, name)));
}

async function explain(file: string): Promise<Record<string, unknown>> {
  try {
    const st = statSync(file);
    if (st.size > MAX_FILE_BYTES) return { file, error: `larger than ${MAX_FILE_BYTES} bytes` };
    const parsed = await parseInbound(readFileSync(file));
    const d = decideInbound(parsed, { sentAt: parsed.date ?? new Date(), senderZone: parsed.dateZone ?? 'UTC' });
    const r = d.report;
    return {
      file,
      kind: d.kind,
      reason: r?.reason ?? d.rules?.intent ?? (d.marker ? 'auto_reply' : null),
      status: r?.status ?? null,
      recipient: r?.recipient ?? null,
      original_message_id: r?.originalMessageId ?? null,
      diagnostic: r?.diagnostic ?? null,
      error: null,
    };
  } catch (err) {
    return { file, error: (err as Error).message || String(err) };
  }
}

async function main(): Promise<void> {
  const files = process.argv.slice(2).flatMap(filesUnder);
  for (const file of files) process.stdout.write(`${JSON.stringify(await explain(file))}\n`);
}

void main();
