import { Router } from 'express';
import { sql } from 'kysely';
import { toE164 } from '../../../domain/companies/identity';
import { getCompany } from '../../../db/queries/companies';
import { complianceGate, ContactErasedError, currentLawfulBasis, eraseContact, recordLawfulBasis } from '../../../db/queries/compliance';
import { getContact, insertContact, listContacts, updateContact } from '../../../db/queries/contacts';
import { asCaller, userOf, visibleOr404, withRecordRole, withRole } from '../access';
import { conflict, notFound, validationFailed } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './contacts.schemas';
import { pathId } from '../validate';

export function contactRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);

  serve('createContact', async (req, res, call) => {
    const body = call.body;
    const contact = await withRole(db, req, body.organizationId, call.role, async (tx) => {
      const company = await getCompany(tx, body.companyId);
      if (!company || company.organization_id !== body.organizationId) throw notFound('company');
      const phone = body.phone ? toE164(body.phone, company.country_code ?? 'NL') : null;
      if (body.phone && !phone) throw validationFailed([{ path: 'body.phone', message: 'is not a valid phone number' }]);
      if (body.email) {
        // lower(email) = lower(?), as the unique index has it (ILIKE would treat _ and % as wildcards).
        const same = await tx
          .selectFrom('contacts')
          .select('id')
          .where('organization_id', '=', body.organizationId)
          .where(sql`lower(email)`, '=', body.email.toLowerCase())
          .executeTakeFirst();
        if (same) throw conflict('A contact with this e-mail address exists', { contact_id: same.id });
      }
      return insertContact(tx, body.organizationId, {
        companyId: body.companyId,
        fullName: body.fullName,
        title: body.title,
        email: body.email?.toLowerCase(),
        phone,
        linkedinUrl: body.linkedinUrl,
        sourceDescription: body.sourceDescription,
        dataSource: 'manual',
        timezone: body.timezone,
      });
    });
    // Committed: the address is checked in the background. A start that fails is logged; the contact
    // stays unknown, and accept starts its check.
    if (contact.email)
      await workflows
        .startContactVerification(contact.organization_id, contact.id)
        .catch((err: unknown) => req.log?.warn({ err, contactId: contact.id }, 'address check could not start'));
    res.status(201).json(contact);
  });

  serve('listContacts', async (req, res, call) => {
    const q = call.query;
    const rows = await withRole(db, req, q.organizationId, call.role, (tx) => listContacts(tx, q));
    res.json(rows);
  });

  serve('getContact', async (req, res) => {
    const id = pathId(req, 'contactId', 'contact');
    const contact = await asCaller(db, req, async (tx) => {
      const c = await getContact(tx, id);
      return c && { ...c, lawful_basis: (await currentLawfulBasis(tx, id)) ?? null };
    });
    if (!contact) throw notFound('contact');
    res.json(contact);
  });

  /** Name, title, phone, LinkedIn profile and time zone (recipient time); an erased contact cannot change (409). */
  serve('patchContact', async (req, res, call) => {
    const id = pathId(req, 'contactId', 'contact');
    const body = call.body;
    const contact = await withRecordRole(db, req, { what: 'contact', load: (tx) => getContact(tx, id) }, call.role, async (tx, existing) => {
      if (existing.erased_at) throw conflict('The contact was erased');
      let phone = body.phone;
      if (body.phone) {
        const company = await getCompany(tx, existing.company_id);
        phone = toE164(body.phone, company?.country_code ?? 'NL');
        if (!phone) throw validationFailed([{ path: 'body.phone', message: 'is not a valid phone number' }]);
      }
      return (await updateContact(tx, id, { ...body, phone }))!;
    });
    res.json(contact);
  });

  /** Which channels may reach this contact, and by which rule (the compliance gate). */
  serve('getContactChannels', async (req, res) => {
    const id = pathId(req, 'contactId', 'contact');
    res.json(await visibleOr404(db, req, 'contact', (tx) => complianceGate(tx, id)));
  });

  serve('recordLawfulBasis', async (req, res, call) => {
    const id = pathId(req, 'contactId', 'contact');
    const body = call.body;
    const record = await withRecordRole(db, req, { what: 'contact', load: (tx) => getContact(tx, id) }, call.role, async (tx, contact) => {
      if (contact.organization_id !== body.organizationId) throw notFound('contact');
      if (contact.erased_at) throw conflict('The contact was erased');
      return recordLawfulBasis(tx, {
        organizationId: body.organizationId,
        contactId: id,
        basis: body.basis,
        recipientKind: body.recipient_kind,
        country: body.country,
        sourceDescription: body.source_description,
        assessment: body.assessment,
        consentEvidence: body.consent_evidence,
        recordedBy: userOf(req),
      }).catch((err) => {
        // An erasure that committed after the contact was loaded (the record locks the contact's row).
        if (err instanceof ContactErasedError) throw conflict(err.message);
        throw err;
      });
    });
    res.json(record);
  });

  /** The check runs in a workflow; the contact is answered as it stands. */
  serve('verifyContact', async (req, res, call) => {
    const id = pathId(req, 'contactId', 'contact');
    void call.body;
    const contact = await withRecordRole(db, req, { what: 'contact', load: (tx) => getContact(tx, id) }, call.role, async (tx, existing) => {
      if (existing.erased_at) throw conflict('The contact was erased');
      if (!existing.email) throw conflict('The contact has no e-mail address to check');
      await workflows.startContactVerification(existing.organization_id, id);
      return existing;
    });
    res.status(202).json(contact);
  });

  serve('verifyContacts', async (req, res, call) => {
    const body = call.body;
    await withRole(db, req, body.organizationId, call.role, async (tx) => {
      if (body.companyId) {
        const company = await getCompany(tx, body.companyId);
        if (!company || company.organization_id !== body.organizationId) throw notFound('company');
      }
    });
    // One run per filter: asking again while it goes answers the same run (and spends a paid verifier's credits once).
    const runKey = `request-${body.companyId ?? 'all'}-${body.status ?? 'any'}`;
    const { workflowId } = await workflows.startContactsVerification(body.organizationId, runKey, { companyId: body.companyId, status: body.status });
    res.status(202).json({ workflow_id: workflowId, organization_id: body.organizationId, company_id: body.companyId ?? null, status: body.status ?? null });
  });

  /**
   * GDPR Art. 17: erasure on request. The contact stays as an anonymous row and a hashed suppression;
   * its running enrollments are stopped (their waiting drafts skipped) and their runs woken.
   */
  serve('eraseContact', async (req, res, call) => {
    const id = pathId(req, 'contactId', 'contact');
    const { contact, stopped } = await withRecordRole(db, req, { what: 'contact', load: (tx) => getContact(tx, id) }, call.role, async (tx) => {
      const erasure = await eraseContact(tx, id, userOf(req), 'request');
      return { contact: await getContact(tx, id), stopped: erasure?.stoppedEnrollments ?? [] };
    });
    await workflows.notifyEnrollments(stopped);
    res.json(contact);
  });

  return r;
}
