import { Router } from 'express';
import { changeMeetingStatus, getMeeting, listMeetings, MeetingReferenceError, recordMeeting } from '../../../db/queries/meetings';
import type { Tx } from '../../../db/tenancy';
import { readWithRole, userOf, visibleOr404, withRecordRole, withRole, WRITE } from '../access';
import { notFound, validationFailed } from '../errors';
import type { ApiDeps } from '../app';
import { createMeetingBody, listMeetingsQuery, meetingStatusBody } from '../schemas';
import { parseBody, parseQuery, pathId } from '../validate';

/**
 * Meetings (api-contract "Meetings"). Recording one for a contact stops the contact's sequences
 * (enrollments stopped, reason meeting_booked; waiting drafts skipped) and starts the meeting's
 * workflow (meeting/<id>): its reminder and, with auto-sync on, its CRM record. A repeat of
 * (provider, externalId) updates the meeting (200); moving its start moves the reminder.
 */
export function meetingRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const loader = (id: string) => ({ what: 'meeting', load: (tx: Tx) => getMeeting(tx, id) });

  r.post('/meetings', async (req, res) => {
    const body = parseBody(createMeetingBody, req);
    const recorded = await withRole(db, req, body.organizationId, WRITE, async (tx) => {
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
    await workflows.notifyEnrollments(recorded.stoppedEnrollmentIds);
    if (recorded.changed) await workflows.wakeMeeting(recorded.meeting);
    res.status(recorded.created ? 201 : 200).json(recorded.meeting);
  });

  r.get('/meetings', async (req, res) => {
    const q = parseQuery(listMeetingsQuery, req);
    res.json(await readWithRole(db, req, q.organizationId, 'viewer', (qb) => listMeetings(qb, q)));
  });

  r.get('/meetings/:meetingId', async (req, res) => {
    const id = pathId(req, 'meetingId', 'meeting');
    res.json(await visibleOr404(db, req, 'meeting', (tx) => getMeeting(tx, id)));
  });

  /** cancelled, completed or no_show; cancelling withdraws the reminder; a stopped sequence stays stopped. */
  r.post('/meetings/:meetingId/status', async (req, res) => {
    const id = pathId(req, 'meetingId', 'meeting');
    const body = parseBody(meetingStatusBody, req);
    const result = await withRecordRole(db, req, loader(id), WRITE, async (tx) => (await changeMeetingStatus(tx, id, body.status))!);
    if (result.changed) await workflows.wakeMeeting(result.meeting);
    res.json(result.meeting);
  });

  return r;
}
