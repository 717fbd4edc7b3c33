import { ApplicationFailure, log } from '@temporalio/activity';
import { usableIntegration } from '../db/queries/integrations';
import {
  bookingCancelled,
  changeMeetingStatus,
  createMeetingReminder,
  findMeetingByExternalId,
  meetingForCrm,
  meetingSchedule,
  recordBookingEvent,
  recordCrmSync,
  recordMeeting,
} from '../db/queries/meetings';
import { secretContext, type SecretBox } from '../db/secrets';
import { asOrganization } from '../db/tenancy';
import type { DB } from '../db/pool';
import type { BookingEvent, BookingProvider } from '../domain/meetings/bookings';
import { HUBSPOT_OUTCOME, SALESFORCE_EVENT, type MeetingStatus } from '../domain/meetings/meetings';
import { ProviderRequestError } from './providers/outcome';
import type { SalesforceApp } from './providers/crm/salesforce';
import { dbSalesforceTokenStore } from './providers/crm/salesforce-token-store';
import { hubspotFrom, salesforceFrom } from './providers/registry';

export interface MeetingRef {
  organizationId: string;
  meetingId: string;
}

export interface BookingOutcome {
  /** The meeting the booking recorded, moved or cancelled; null when it named none (ignored). */
  meetingId: string | null;
  created: boolean;
  changed: boolean;
  stoppedEnrollmentIds: string[];
  opportunityId: string | null;
  enrollmentId: string | null;
  reason?: string;
}

export type CrmSyncOutcome =
  { synced: true; crmExternalId: string; created: boolean } | { synced: false; reason: 'no_crm' | 'auto_sync_off' | 'no_meeting' | 'rejected'; error?: string };

/** A CRM answer that no retry heals: a 4xx other than 429, or a destination that is refused. */
export function refusedForGood(err: ProviderRequestError): boolean {
  return err.status === null ? !err.retryable : err.status >= 400 && err.status < 500 && err.status !== 429;
}

export function createMeetingActivities(deps: { db: DB; secrets: SecretBox | null; salesforce?: SalesforceApp | null }) {
  const { db } = deps;
  /** Records the CRM's id on the meeting; a refusal for good (a 4xx) is recorded in crm_error instead, anything else thrown (retried). */
  async function recordingRefusals(ref: MeetingRef, sync: () => Promise<{ id: string; created: boolean }>): Promise<CrmSyncOutcome> {
    try {
      const { id, created } = await sync();
      await asOrganization(db, ref.organizationId, (tx) => recordCrmSync(tx, ref.meetingId, { externalId: id }));
      return { synced: true, crmExternalId: id, created };
    } catch (err) {
      if (err instanceof ProviderRequestError && refusedForGood(err)) {
        log.warn('the CRM refused the meeting', { meetingId: ref.meetingId, error: err.message });
        await asOrganization(db, ref.organizationId, (tx) => recordCrmSync(tx, ref.meetingId, { error: err.message }));
        return { synced: false, reason: 'rejected', error: err.message };
      }
      throw err;
    }
  }
  return {
    /**
     * A verified booking delivery (Cal.com, Calendly), acting for the integration's organization: a
     * booking becomes a meeting (booked_via link; a reschedule moves the meeting it replaces), a
     * cancellation cancels it. A repeat delivery changes nothing, also after Temporal's retention (its
     * digest is kept in booking_events). Deliveries may arrive in any order: a cancellation of a
     * booking not recorded yet is kept as a tombstone, and the booking, when it comes, records
     * nothing unless the provider dated it after the cancellation.
     */
    async recordBooking(input: { organizationId: string; provider: BookingProvider; event: BookingEvent }): Promise<BookingOutcome> {
      const { event } = input;
      const none = (reason: string): BookingOutcome => ({
        meetingId: null,
        created: false,
        changed: false,
        stoppedEnrollmentIds: [],
        opportunityId: null,
        enrollmentId: null,
        reason,
      });
      if (event.kind === 'ignored') return none(event.reason);
      return asOrganization(db, input.organizationId, async (tx) => {
        const { organizationId, provider } = input;
        const occurredAt = event.occurredAt ?? null;
        if (
          event.digest &&
          !(await recordBookingEvent(tx, { organizationId, provider, externalId: event.externalId, kind: event.kind, occurredAt, digest: event.digest }))
        ) {
          return none('this delivery was processed before');
        }
        if (event.kind === 'cancelled') {
          const found = await findMeetingByExternalId(tx, input.organizationId, input.provider, event.externalId);
          if (!found) return none('no meeting was recorded for this booking: the cancellation is kept, so the booking records nothing if it comes later');
          const r = (await changeMeetingStatus(tx, found.id, 'cancelled'))!;
          return {
            meetingId: found.id,
            created: false,
            changed: r.changed,
            stoppedEnrollmentIds: [],
            opportunityId: r.meeting.opportunity_id,
            enrollmentId: r.meeting.enrollment_id,
          };
        }
        if (await bookingCancelled(tx, organizationId, provider, event.externalId, occurredAt)) {
          return none('the booking was cancelled before it was recorded (a cancellation dated no earlier was processed first)');
        }
        const r = await recordMeeting(tx, {
          organizationId: input.organizationId,
          createdBy: null,
          title: event.title,
          startsAt: new Date(event.startsAt),
          endsAt: new Date(event.endsAt),
          enrollmentId: event.enrollmentId,
          attendeeEmail: event.attendeeEmail,
          provider: input.provider,
          externalId: event.externalId,
          previousExternalId: event.previousExternalId,
          joinUrl: event.joinUrl,
          bookedVia: 'link',
          strictReferences: false,
        });
        return {
          meetingId: r.meeting.id,
          created: r.created,
          changed: r.changed,
          stoppedEnrollmentIds: r.stoppedEnrollmentIds,
          opportunityId: r.meeting.opportunity_id,
          enrollmentId: r.meeting.enrollment_id,
        };
      });
    },

    meetingSchedule(ref: MeetingRef) {
      return asOrganization(db, ref.organizationId, async (tx) => (await meetingSchedule(tx, ref.meetingId)) ?? null);
    },

    createMeetingReminder(input: MeetingRef & { startsAt: string }) {
      return asOrganization(db, input.organizationId, (tx) => createMeetingReminder(tx, input.meetingId, input.startsAt));
    },

    /**
     * The meeting in the organization's CRM when its CRM integration has config.autoSync: created
     * (associated with the contact) the first time, then its times and outcome updated. A CRM that is
     * down or rate-limits is retried (the activity throws); a 4xx is recorded on the meeting
     * (crm_error) and not retried.
     */
    async syncMeetingToCrm(ref: MeetingRef): Promise<CrmSyncOutcome> {
      const read = await asOrganization(db, ref.organizationId, async (tx) => ({
        meeting: await meetingForCrm(tx, ref.meetingId),
        crm: await usableIntegration(tx, ref.organizationId, 'crm'),
      }));
      const { meeting, crm } = read;
      if (!meeting) return { synced: false, reason: 'no_meeting' };
      if (!crm?.secret_ciphertext || (crm.provider_key !== 'hubspot' && crm.provider_key !== 'salesforce')) return { synced: false, reason: 'no_crm' };
      const config = (crm.config ?? {}) as Record<string, unknown>;
      if (config.autoSync !== true) return { synced: false, reason: 'auto_sync_off' };
      if (!deps.secrets) throw ApplicationFailure.nonRetryable('INTEGRATION_SECRET_KEY is not configured', 'CrmNotConfigured');
      if (crm.provider_key === 'salesforce') {
        if (!deps.salesforce) throw ApplicationFailure.nonRetryable('SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET are not configured', 'CrmNotConfigured');
        const sf = salesforceFrom(config, dbSalesforceTokenStore(db, deps.secrets, crm.organization_id, crm.id), deps.salesforce);
        const look = SALESFORCE_EVENT[meeting.status as MeetingStatus] ?? SALESFORCE_EVENT.proposed;
        const event = {
          subject: `${look.subjectPrefix}${meeting.title}`,
          startsAt: meeting.starts_at,
          endsAt: meeting.ends_at,
          location: meeting.join_url,
          showAs: look.showAs,
          key: `outreach-meeting:${ref.meetingId}`,
        };
        return recordingRefusals(ref, async () => {
          let id = meeting.crm_external_id;
          if (!id) {
            const email = meeting.contact_email ?? meeting.attendee_email;
            if (!email) throw new ProviderRequestError('Salesforce: the meeting names no e-mail address to link the Event to', 400, false);
            const who = await sf.whoIdFor(email, meeting.contact_name, null);
            // A create whose answer was lost left an Event under our key: found, not made twice.
            id = (who.created ? null : await sf.eventIdByKey(who.id, event.key)) ?? null;
            if (!id) return { id: await sf.createEvent(event, who.id), created: true };
          }
          await sf.updateEvent(id, event);
          return { id, created: false };
        });
      }
      const client = hubspotFrom(config, deps.secrets.open(crm.secret_ciphertext, secretContext(crm.organization_id, crm.id)));
      const properties = {
        title: meeting.title,
        startsAt: meeting.starts_at,
        endsAt: meeting.ends_at,
        outcome: HUBSPOT_OUTCOME[meeting.status as MeetingStatus] ?? 'SCHEDULED',
        joinUrl: meeting.join_url,
        key: `outreach-meeting:${ref.meetingId}`,
      };
      return recordingRefusals(ref, async () => {
        // A create whose answer was lost (timeout, or recording it failed) left a meeting under our key: found, not made twice.
        let id = meeting.crm_external_id ?? (await client.meetingIdByKey(properties.key));
        const created = !id;
        if (id) await client.updateMeeting(id, properties);
        else {
          const email = meeting.contact_email ?? meeting.attendee_email;
          const contactId = email ? await client.contactIdFor(email, meeting.contact_name) : null;
          id = await client.createMeeting(properties, contactId);
        }
        return { id, created };
      });
    },
  };
}
