import { Router } from 'express';
import { changeMeetingStatus, getMeeting, listMeetings, MeetingReferenceError, recordMeeting } from '../../../db/queries/meetings';
import type { Tx } from '../../../db/tenancy';
import { readWithRole, userOf, visibleOr404, withRecordRole, withRole } from '../access';
import { notFound, validationFailed } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './meetings.schemas';
import { pathId } from '../validate';

/**
 * Meetings. Recording one for a contact stops the contact's sequences
 * (enrollments stopped, reason meeting_booked; waiting drafts skipped) and starts the meeting's
 * workflow (meeting/<id>): its reminder and, with auto-sync on, its CRM record. A repeat of
 * (provider, externalId) updates the meeting (200); moving its start moves the reminder.
 */
export function meetingRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);
  const loader = (id: string) => ({ what: 'meeting', load: (tx: Tx) => getMeeting(tx, id) });

  serve('recordMeeting', async (req, res, call) => {
    const body = call.body;
    const recorded = await withRole(db, req, body.organizationId, call.role, async (tx) => {
      try {
        return await recordMeeting(tx, {
          organizationId: body.organizationId,
          createdBy: userOf(req),
          title: body.title,
          startsAt: body.startsAt,
          endsAt: body.endsAt,
          contactId: body.contactId,
          enrollmentId: body.enrollmentId,
          opportunityId: body.opportunityId,
          threadId: body.threadId,
          attendeeEmail: body.attendeeEmail,
          provider: body.provider ?? 'manual',
          externalId: body.externalId,
          joinUrl: body.joinUrl,
          bookedVia: body.bookedVia ?? 'manual',
          strictReferences: true,
        });
      } catch (err) {
        if (err instanceof MeetingReferenceError) {
          if (err.kind === 'not_found') throw notFound(err.what);
          throw validationFailed([{ path: `body.${err.field}`, message: err.message }]);
        }
        throw err;
      }
    });
    // After the commit: the stopped sequence runs wake, and the meeting's workflow starts or re-reads it.
    // The meeting is recorded whatever Temporal answers: a failure here is logged, not answered as a
    // 500 (which frees the Idempotency-Key, so the client's retry would record the meeting twice). A
    // stopped sequence is found by the outreach reconcile; the meeting's run starts at its next change.
    try {
      await workflows.notifyEnrollments(recorded.stoppedEnrollmentIds);
      if (recorded.changed) await workflows.wakeMeeting(recorded.meeting);
    } catch (err) {
      req.log?.warn({ err, meetingId: recorded.meeting.id }, 'the meeting is recorded; its workflow could not be woken now');
    }
    res.status(recorded.created ? 201 : 200).json(recorded.meeting);
  });

  serve('listMeetings', async (req, res, call) => {
    const q = call.query;
    res.json(await readWithRole(db, req, q.organizationId, call.role, (qb) => listMeetings(qb, q)));
  });

  serve('getMeeting', async (req, res) => {
    const id = pathId(req, 'meetingId', 'meeting');
    res.json(await visibleOr404(db, req, 'meeting', (tx) => getMeeting(tx, id)));
  });

  /** cancelled, completed or no_show; cancelling withdraws the reminder; a stopped sequence stays stopped. */
  serve('changeMeetingStatus', async (req, res, call) => {
    const id = pathId(req, 'meetingId', 'meeting');
    const body = call.body;
    const result = await withRecordRole(db, req, loader(id), call.role, async (tx) => (await changeMeetingStatus(tx, id, body.status))!);
    if (result.changed) await workflows.wakeMeeting(result.meeting);
    res.json(result.meeting);
  });

  return r;
}
