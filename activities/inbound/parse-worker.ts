import { parentPort } from 'node:worker_threads';
import { decideInbound } from '../../domain/replies/inbound-decision';
import { NotRfc822Error, parseInbound } from '../providers/mail/parse';
import type { ParseRequest, ParseResponse } from './parse-pool';

/**
 * The parse worker thread (parse-pool.ts starts it): one raw message at a time, parsed (mailparser,
 * html-to-text) and decided by the rules (domain/replies/inbound-decision.ts), answered as plain data. Whatever a message does to the
 * parser happens here, not on the event loop of the API or the Temporal worker.
 */
parentPort!.on('message', async (req: ParseRequest) => {
  let res: ParseResponse;
  try {
    const parsed = await parseInbound(Buffer.from(req.raw));
    const sentAt = parsed.date ?? new Date(req.receivedAt);
    const decision = decideInbound(parsed, { sentAt, senderZone: parsed.dateZone ?? req.zone });
    res = { id: req.id, ok: true, parsed, decision };
  } catch (err) {
    res = { id: req.id, ok: false, notRfc822: err instanceof NotRfc822Error, message: (err as Error).message ?? String(err) };
  }
  parentPort!.postMessage(res);
});
