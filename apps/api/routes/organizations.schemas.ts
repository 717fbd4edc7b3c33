import { z } from 'zod';
import { name } from '../../../domain/companies/fields';
import { id, record, roles, stamps, uuid, type Agrees, type Operation, type Row } from '../contract';
import type { addOrChangeMembership } from '../../../db/queries/organizations';

/**
 * The HTTP contract of apps/api/routes/organizations.ts: tenants and their members. Its request
 * schemas, the records it answers (registered with `record`) and its operations, which
 * apps/api/openapi.ts assembles into the OpenAPI document.
 */

export const createOrganizationBody = z.object({ name }).strict();

export const addMemberBody = z.object({ userId: uuid, role: z.enum(roles) }).strict();

export const Organization = record(
  'Organization',
  "An organization (tenant) and the caller's role in it",
  z.object({ id, name: z.string(), role: z.enum(roles), ...stamps }),
);

export const Membership = record(
  'Membership',
  "A user's role in an organization",
  z.object({ organization_id: id, user_id: id, role: z.enum(roles), ...stamps }),
);

/** Fails to compile, naming the fields, when a query's column list and its response schema drift apart. */
export const ROWS_MATCH: {
  Membership: Agrees<NonNullable<Row<typeof addOrChangeMembership>['membership']>, typeof Membership>;
} = { Membership: true };

export const operations = [
  {
    id: 'createOrganization',
    mcp: 'hidden',
    method: 'post',
    path: '/organizations',
    tag: 'Organizations',
    summary: 'Create an organization; the caller becomes owner',
    role: 'any user',
    body: createOrganizationBody,
    status: 201,
    answer: Organization,
  },
  {
    id: 'listOrganizations',
    method: 'get',
    path: '/organizations',
    tag: 'Organizations',
    summary: "The caller's organizations",
    role: 'any user',
    answer: z.array(Organization),
  },
  {
    id: 'getOrganization',
    method: 'get',
    path: '/organizations/{organizationId}',
    tag: 'Organizations',
    summary: 'One organization',
    role: 'viewer',
    answer: Organization,
  },
  {
    id: 'addOrganizationMember',
    mcp: 'hidden',
    method: 'post',
    path: '/organizations/{organizationId}/members',
    tag: 'Organizations',
    summary: 'Add a member (201) or change a role (200)',
    role: 'admin',
    body: addMemberBody,
    status: 201,
    repeatStatus: 200,
    answer: Membership,
  },
] as const satisfies readonly Operation[];
