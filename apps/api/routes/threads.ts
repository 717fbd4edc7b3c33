import { Router } from 'express';
import { getMessage, threadMessages } from '../../../db/queries/messages';
import { getThread, insertThreadReply, isMember, listThreads, replyTarget, updateThread } from '../../../db/queries/threads';
import type { Tx } from '../../../db/tenancy';
import { userOf, visibleOr404, withRecordRole, withRole } from '../access';
import { conflict, validationFailed } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './threads.schemas';
import { pathId } from '../validate';

/** GET /threads/{id} answers the newest this many messages (oldest first); message_count tells how many there are. */
export const THREAD_VIEW_MESSAGES = 200;

/**
 * Threads: the conversations over the messages already stored, to read, assign and close,
 * and a reply written by a person. The reply is an approved outbound message of the thread's mailbox
 * answering the last inbound message (In-Reply-To, References), sent by its own run through the
 * send path every approved message takes (activities/send.ts: suppression and erasure at send time,
 * the mailbox's window and daily cap, at most once).
 */
export function threadRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const loader = (id: string) => ({ what: 'thread', load: (tx: Tx) => getThread(tx, id) });

  serve('listThreads', async (req, res, call) => {
    const q = call.query;
    res.json(await withRole(db, req, q.organizationId, call.role, (tx) => listThreads(tx, q)));
  });

  serve('getThread', async (req, res) => {
    const id = pathId(req, 'threadId', 'thread');
    res.json(
      await visibleOr404(db, req, 'thread', async (tx) => {
        const thread = await getThread(tx, id);
        return thread && { ...thread, messages: await threadMessages(tx, id, THREAD_VIEW_MESSAGES) };
      }),
    );
  });

  serve('updateThread', async (req, res, call) => {
    const id = pathId(req, 'threadId', 'thread');
    const body = call.body;
    const thread = await withRecordRole(db, req, loader(id), call.role, async (tx, found) => {
      if (body.assignedTo && !(await isMember(tx, found.organization_id, body.assignedTo))) {
        throw validationFailed([{ path: 'body.assignedTo', message: 'is not a member of the organization' }]);
      }
      await updateThread(tx, id, body);
      return getThread(tx, id);
    });
    res.json(thread);
  });

  serve('replyToThread', async (req, res, call) => {
    const id = pathId(req, 'threadId', 'thread');
    const body = call.body;
    const message = await withRecordRole(db, req, loader(id), call.role, async (tx, thread) => {
      if (!thread.mailbox_id) throw conflict('The thread has no mailbox to answer from');
      const target = await replyTarget(tx, thread);
      if (target.contact.erased_at || !target.contact.email) throw conflict('The contact was erased or has no e-mail address');
      const base = thread.subject ?? '';
      const subject = body.subject ?? (/^re:/i.test(base) ? base : `Re: ${base}`.trim());
      const { id: messageId } = await insertThreadReply(tx, {
        organizationId: thread.organization_id,
        threadId: id,
        contactId: thread.contact_id,
        mailboxId: thread.mailbox_id,
        subject,
        body: body.body,
        toAddress: target.contact.email,
        userId: userOf(req),
        inReplyTo: target.inReplyTo,
        references: target.references,
      });
      return (await getMessage(tx, messageId))!;
    });
    // After the commit, as an approved reply draft is released (routes/messages.ts). The reply is
    // written and approved: when its run cannot be started now, the outreach reconcile starts it
    // (an approved message outside a sequence without a run), so the answer is still 201. A 500
    // here would free the Idempotency-Key and the client's retry would write the reply a second time.
    try {
      await workflows.startMessageSend(message.organization_id, message.id, message.mailbox_id);
    } catch (err) {
      req.log?.warn({ err, messageId: message.id }, 'the reply is stored; its send run could not be started now and is left to the outreach reconcile');
    }
    res.status(201).json(message);
  });

  return r;
}
