import express, { Router } from 'express';
import { mailboxCalendar } from '../../../db/queries/inbox-state';
import type { Tx } from '../../../db/tenancy';
import { ingestInbound, type Transact } from '../../../activities/inbound/ingest-message';
import { replyClassifierLookup } from '../../../activities/replies';
import { NotRfc822Error } from '../../../activities/providers/mail/parse';
import { sharedParsePool } from '../../../activities/inbound/parse-pool';
import { withRecordRole } from '../access';
import { idempotentRawPosts } from '../idempotency';
import { ProblemError, validationFailed } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './inbound.schemas';
import { pathId } from '../validate';

/** The default largest raw message POST /mailboxes/{id}/inbound takes (INBOUND_MAX_BYTES). */
export const DEFAULT_INBOUND_MAX_BYTES = 10 * 1024 * 1024;

/**
 * POST /mailboxes/{mailboxId}/inbound: a provider that pushes mail hands over one raw RFC 822
 * message (Content-Type message/rfc822). It takes the same path as mail read from the mailbox's
 * IMAP inbox (activities/inbound/ingest-message.ts), as the caller (member role): 202 {message_id},
 * or 200 {duplicate: true} when the mailbox already has a message with its Message-ID. Mounted
 * before the JSON body rule: its body is not JSON. Other types are 415, a body over the limit 413,
 * one that is not a message 400; the sequences it stopped or paused are woken after the commit. The
 * mailbox and the caller's role are checked before the body is read (a stranger's 10 MB is never
 * buffered). A message that cannot be processed is kept unprocessed (202, its id) and retried by the
 * mailbox's inbox poll.
 */
export function inboundRoutes(deps: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const limit = deps.inbound?.maxBytes ?? DEFAULT_INBOUND_MAX_BYTES;
  sharedParsePool().warm();
  serve(
    'receiveInboundMessage',
    (req, _res, next) => {
      if (!req.is('message/rfc822')) throw new ProblemError('UNSUPPORTED_MEDIA_TYPE', 'The body must be one raw RFC 822 message, Content-Type message/rfc822');
      next();
    },
    async (req, res, call) => {
      const id = pathId(req, 'mailboxId', 'mailbox');
      res.locals.mailbox = await withRecordRole(
        deps.db,
        req,
        { what: 'mailbox', load: (tx: Tx) => mailboxCalendar(tx, id) },
        call.role,
        async (_tx, found) => found,
      );
      call();
    },
    express.raw({ type: 'message/rfc822', limit }),
    // An Idempotency-Key compares the message's bytes.
    idempotentRawPosts(deps.db),
    async (req, res, call) => {
      const id = pathId(req, 'mailboxId', 'mailbox');
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const loader = { what: 'mailbox', load: (tx: Tx) => mailboxCalendar(tx, id) };
      const transact: Transact = (fn) => withRecordRole(deps.db, req, loader, call.role, (tx) => fn(tx));
      const mailbox = res.locals.mailbox as NonNullable<Awaited<ReturnType<typeof mailboxCalendar>>>;
      if (!raw.length) throw validationFailed([{ path: 'body', message: 'is empty: send one raw RFC 822 message' }]);
      const classifierFor = replyClassifierLookup(deps.db, deps.secrets, deps.inbound?.llm ?? {}, () => transact);
      let outcome;
      try {
        outcome = await ingestInbound(transact, await classifierFor(mailbox.organization_id), { organizationId: mailbox.organization_id, mailboxId: id, raw });
      } catch (err) {
        if (err instanceof NotRfc822Error) throw validationFailed([{ path: 'body', message: err.message }]);
        throw err;
      }
      if (outcome.duplicate) return void res.status(200).json({ duplicate: true });
      await deps.workflows.notifyEnrollments(outcome.changedEnrollmentIds);
      res.status(202).json({ message_id: outcome.messageId });
    },
  );
  return r;
}
