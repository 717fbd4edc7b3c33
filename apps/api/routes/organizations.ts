import { Router } from 'express';
import { addOrChangeMembership, createOrganization, getOrganization, roleOf } from '../../../db/queries/organizations';
import { seedOrganizationDefaults } from '../../../db/queries/organization-defaults';
import { refuseApiKey } from '../auth';
import { asCaller, outranks, requireRole, userOf } from '../access';
import { conflict, forbidden, notFound } from '../errors';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './organizations.schemas';
import { Role } from '../contract';
import { pathId } from '../validate';

export function organizationRoutes({ db, workflows }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);

  serve('createOrganization', refuseApiKey, async (req, res, call) => {
    const body = call.body;
    const org = await asCaller(db, req, async (tx) => {
      const created = await createOrganization(tx, body.name);
      await seedOrganizationDefaults(tx, created!.id, req.user!.userId);
      await workflows.ensureRetentionSchedule(created!.id);
      return created;
    });
    res.status(201).json({ ...org, role: 'owner' });
  });

  serve('listOrganizations', async (req, res) => {
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

  serve('getOrganization', async (req, res, call) => {
    const id = pathId(req, 'organizationId', 'organization');
    const org = await asCaller(db, req, async (tx) => {
      const role = await requireRole(tx, req, id, call.role);
      return { ...(await getOrganization(tx, id)), role };
    });
    res.json(org);
  });

  serve('addOrganizationMember', refuseApiKey, async (req, res, call) => {
    const id = pathId(req, 'organizationId', 'organization');
    const body = call.body;
    const { membership, created } = await asCaller(db, req, async (tx) => {
      const callerRole = await requireRole(tx, req, id, call.role);
      // An admin manages members and admins; only an owner grants or changes ownership.
      const existing = (await roleOf(tx, id, body.userId)) as Role | undefined;
      if ((body.role === 'owner' || existing === 'owner') && !outranks(callerRole, 'owner')) {
        throw forbidden('Only an owner can grant or change the owner role');
      }
      try {
        return await addOrChangeMembership(tx, id, body.userId, body.role);
      } catch (err) {
        // app.memberships_not_api_keys: a key's membership is the key's own (its organization, its role).
        if ((err as { constraint?: string }).constraint === 'memberships_api_key')
          throw conflict("The user is an API key: a key's role and organization cannot be changed");
        throw err;
      }
    });
    if (!membership) throw notFound('organization');
    res.status(created ? 201 : 200).json(membership);
  });

  return r;
}
