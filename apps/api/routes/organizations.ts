import { Router } from 'express';
import { addOrChangeMembership, createOrganization, getOrganization, roleOf } from '../../../db/queries/organizations';
import { seedOrganizationDefaults } from '../../../db/queries/organization-defaults';
import { asCaller, outranks, requireRole, userOf } from '../access';
import { forbidden, notFound } from '../errors';
import type { ApiDeps } from '../app';
import { addMemberBody, createOrganizationBody, Role } from '../schemas';
import { parseBody, pathId } from '../validate';

export function organizationRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();

  r.post('/organizations', async (req, res) => {
    const body = parseBody(createOrganizationBody, req);
    const org = await asCaller(db, req, async (tx) => {
      const created = await createOrganization(tx, body.name);
      await seedOrganizationDefaults(tx, created!.id, req.user!.userId);
      await workflows.ensureRetentionSchedule(created!.id);
      return created;
    });
    res.status(201).json({ ...org, role: 'owner' });
  });

  r.get('/organizations', async (req, res) => {
    const rows = await asCaller(db, req, (tx) =>
      tx
        .selectFrom('organizations')
        .innerJoin('memberships', 'memberships.organization_id', 'organizations.id')
        .select(['organizations.id', 'organizations.name', 'organizations.created_at', 'organizations.updated_at', 'memberships.role'])
        .where('memberships.user_id', '=', userOf(req))
        .orderBy('organizations.created_at', 'desc')
        .execute(),
    );
    res.json(rows);
  });

  r.get('/organizations/:organizationId', async (req, res) => {
    const id = pathId(req, 'organizationId', 'organization');
    const org = await asCaller(db, req, async (tx) => {
      const role = await requireRole(tx, req, id);
      return { ...(await getOrganization(tx, id)), role };
    });
    res.json(org);
  });

  r.post('/organizations/:organizationId/members', async (req, res) => {
    const id = pathId(req, 'organizationId', 'organization');
    const body = parseBody(addMemberBody, req);
    const { membership, created } = await asCaller(db, req, async (tx) => {
      const callerRole = await requireRole(tx, req, id, 'admin');
      // An admin manages members and admins; only an owner grants or changes ownership.
      const existing = (await roleOf(tx, id, body.userId)) as Role | undefined;
      if ((body.role === 'owner' || existing === 'owner') && !outranks(callerRole, 'owner')) {
        throw forbidden('Only an owner can grant or change the owner role');
      }
      return addOrChangeMembership(tx, id, body.userId, body.role);
    });
    if (!membership) throw notFound('organization');
    res.status(created ? 201 : 200).json(membership);
  });

  return r;
}
