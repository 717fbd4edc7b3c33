import { Router } from 'express';
import { sql } from 'kysely';
import { getMessage, listMessagesJson, lockMessage, transitionMessage } from '../../../db/queries/messages';
import { recordPromptEval } from '../../../db/queries/prompt-evals';
import type { Tx } from '../../../db/tenancy';
import { DRAFT_PROMPT_KEY } from '../../../domain/outreach/draft';
import { risksAfterEdit, UNSUPPORTED_CLAIM_RISK, type GroundingDraft } from '../../../domain/outreach/grounding';
import { MESSAGE_TRANSITIONS, type MessageAction } from '../../../domain/outreach/messages';
import { readJsonWithRole, userOf, visibleOr404, withRecordRole } from '../access';
import { conflict } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { sendJsonText } from '../json-text';
import { operations } from './messages.schemas';
import { pathId } from '../validate';

/**
 * Messages and the approval inbox. A decision on a
 * draft or a task is written first (409 from any other status), then its sequence run is woken to
 * act on it; an approved message that is not a sequence step (a reply or meeting-reminder draft) starts its own send.
 */
export function messageRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const loader = (id: string) => ({ what: 'message', load: (tx: Tx) => getMessage(tx, id) });

  /** Moves the message (locked) along one transition with the fields of that move; 409 from any other status. */
  async function decide(
    tx: Tx,
    id: string,
    action: MessageAction,
    patch: (m: NonNullable<Awaited<ReturnType<typeof lockMessage>>>) => Record<string, unknown>,
  ) {
    const m = await lockMessage(tx, id);
    const allowed = MESSAGE_TRANSITIONS[action].from as readonly string[];
    if (!m || !allowed.includes(m.status))
      throw conflict(
        `The message is ${m?.status ?? 'gone'}; only a message that is ${allowed.join(' or ')} can be ${action === 'complete' ? 'completed' : `${action}d`}`,
      );
    await transitionMessage(tx, id, action, MESSAGE_TRANSITIONS[action].to, patch(m));
    return (await getMessage(tx, id))!;
  }

  /**
   * An edit's words checked against the draft's facts (domain/outreach/grounding.ts): its why.risks
   * get the edit's unsupported claims, so the approval inbox shows them whoever edited.
   */
  async function regroundEdit(tx: Tx, id: string, before: GroundingDraft, after: GroundingDraft): Promise<string[]> {
    const row = await tx
      .selectFrom('messages')
      .leftJoin('contacts', 'contacts.id', 'messages.contact_id')
      .leftJoin('companies', 'companies.id', 'contacts.company_id')
      .select(['messages.why', 'contacts.full_name', 'contacts.title', 'companies.name as company_name'])
      .where('messages.id', '=', id)
      .executeTakeFirstOrThrow();
    const why = (row.why ?? {}) as { facts?: Array<{ claim: string }>; risks?: string[]; signal?: { title?: string } | null };
    const known = [row.full_name, row.title, row.company_name, why.signal?.title].filter((k): k is string => typeof k === 'string' && k !== '');
    const { risks, unsupported } = risksAfterEdit(why.risks ?? [], { facts: why.facts ?? [], known }, before, after);
    await tx
      .updateTable('messages')
      .set({ why: sql`jsonb_set(coalesce(why, '{}'::jsonb), '{risks}', ${JSON.stringify(risks)}::jsonb)` })
      .where('id', '=', id)
      .execute();
    return unsupported;
  }

  /** After the decision committed: the sequence run reads it now; a draft outside any sequence is sent by its own run. */
  async function release(m: {
    organization_id: string;
    id: string;
    enrollment_id: string | null;
    step_id: string | null;
    mailbox_id: string | null;
    status: string;
  }) {
    if (m.step_id && m.enrollment_id) await workflows.notifyEnrollments([m.enrollment_id]);
    else if (m.status === 'approved') await workflows.startMessageSend(m.organization_id, m.id, m.mailbox_id);
  }

  serve('listMessages', async (req, res, call) => {
    const q = call.query;
    // The approval inbox: the JSON array as PostgreSQL builds it, passed through (db/json-answers.ts).
    sendJsonText(req, res, await readJsonWithRole(db, req, q.organizationId, call.role, (qb) => listMessagesJson(qb, q)));
  });

  serve('getMessage', async (req, res) => {
    const id = pathId(req, 'messageId', 'message');
    res.json(await visibleOr404(db, req, 'message', (tx) => getMessage(tx, id)));
  });

  /** approved, with the edits; original_body keeps the text before the first edit. Sending then respects the mailbox's window and cap. */
  /** An edit of a draft still waiting: its words change, its status does not (an approval decides). */
  serve('editMessage', async (req, res, call) => {
    const id = pathId(req, 'messageId', 'message');
    const message = await withRecordRole(db, req, loader(id), call.role, async (tx) => {
      // Read here: a path id that names no message of the caller's is 404 before an invalid body is 400.
      const body = call.body;
      const m = await lockMessage(tx, id);
      if (!m || m.status !== 'pending_approval') throw conflict(`The message is ${m?.status ?? 'gone'}; only a message that is pending_approval can be edited`);
      const edited = body.body !== undefined && body.body !== m.body;
      if (edited || (body.subject !== undefined && body.subject !== m.subject))
        await regroundEdit(tx, id, { subject: m.subject, body: m.body ?? '' }, { subject: body.subject ?? m.subject, body: body.body ?? m.body ?? '' });
      await tx
        .updateTable('messages')
        .set({
          ...(body.subject !== undefined ? { subject: body.subject } : {}),
          ...(edited ? { body: body.body, original_body: m.original_body ?? m.body } : {}),
          updated_at: sql`now()`,
        })
        .where('id', '=', id)
        .where('status', '=', 'pending_approval')
        .execute();
      return (await getMessage(tx, id))!;
    });
    res.json(message);
  });

  serve('approveMessage', async (req, res, call) => {
    const id = pathId(req, 'messageId', 'message');
    const body = call.body;
    const message = await withRecordRole(db, req, loader(id), call.role, async (tx) => {
      const edit: { case?: { original: string; sent: string; promptKey: string; promptVersion: string } } = {};
      // Edited words are checked against the draft's facts. A machine client (an API key: an assistant, a
      // script) may not approve words no fact supports; a person may, and the risks record it.
      const current = body.body !== undefined || body.subject !== undefined ? await lockMessage(tx, id) : undefined;
      if (
        current &&
        current.status === 'pending_approval' &&
        ((body.body ?? current.body) !== current.body || (body.subject ?? current.subject) !== current.subject)
      ) {
        const unsupported = await regroundEdit(
          tx,
          id,
          { subject: current.subject, body: current.body ?? '' },
          { subject: body.subject ?? current.subject, body: body.body ?? current.body ?? '' },
        );
        if (unsupported.length && req.user?.apiKey)
          throw conflict(`The edited words name what no fact of the draft supports (${unsupported.join('; ')}): a person approves them, or edit them out`);
      }
      // Nor a draft whose words carry such claims already (the writer's, or an earlier edit's).
      if (req.user?.apiKey) {
        const risks = await tx
          .selectFrom('messages')
          .select(sql<string[] | null>`why -> 'risks'`.as('risks'))
          .where('id', '=', id)
          .executeTakeFirst();
        const flagged = (Array.isArray(risks?.risks) ? risks.risks : []).filter((r) => typeof r === 'string' && r.startsWith(`${UNSUPPORTED_CLAIM_RISK}:`));
        if (flagged.length) throw conflict(`The draft names what no fact supports (${flagged.join('; ')}): a person approves it, or edit it out`);
      }
      const approved = await decide(tx, id, 'approve', (m) => {
        const edited = body.body !== undefined && body.body !== m.body;
        // Every approved model draft is an eval case of the prompt (or template) that wrote it: one
        // approved as written scores similarity 1, one a person changed less.
        if (m.body && m.model) {
          edit.case = {
            original: m.original_body ?? m.body,
            sent: edited ? body.body! : m.body,
            promptKey: m.prompt_key ?? DRAFT_PROMPT_KEY,
            promptVersion: m.prompt_version ?? m.model,
          };
        }
        return {
          ...(body.subject !== undefined ? { subject: body.subject } : {}),
          ...(edited ? { body: body.body, original_body: m.original_body ?? m.body } : {}),
          approved_by: userOf(req),
          approved_at: sql`now()`,
          error: null,
        };
      });
      if (edit.case) await recordPromptEval(tx, { organizationId: approved.organization_id, messageId: id, ...edit.case });
      return approved;
    });
    await release(message);
    res.json(message);
  });

  /** rejected, with the reason; `redraft: true` has the step written again with it, else the step is skipped (a rejected first step ends the enrollment). */
  serve('rejectMessage', async (req, res, call) => {
    const id = pathId(req, 'messageId', 'message');
    const body = call.body;
    const message = await withRecordRole(db, req, loader(id), call.role, (tx) =>
      decide(tx, id, 'reject', () => ({
        rejected_reason: body.reason ?? null,
        redraft_requested: body.redraft ?? false,
        rejected_by: userOf(req),
        rejected_at: sql`now()`,
      })),
    );
    await release(message);
    res.json(message);
  });

  /** A phone or LinkedIn task done (task_done), with an optional note; the sequence moves on. */
  serve('completeMessage', async (req, res, call) => {
    const id = pathId(req, 'messageId', 'message');
    const body = call.body;
    const message = await withRecordRole(db, req, loader(id), call.role, (tx) =>
      decide(tx, id, 'complete', () => ({ completed_note: body.note ?? null, completed_by: userOf(req), completed_at: sql`now()` })),
    );
    await release(message);
    res.json(message);
  });

  return r;
}
