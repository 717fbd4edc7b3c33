import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { continueAsNew, ParentClosePolicy, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { EmailStatus } from '../domain/contacts/email-verification';
import { dbActivityOptions, providerActivityOptions } from './retry';
import { searchAttributes, workflowIds } from './search-attributes';

export interface VerifyContactsInput {
  organizationId: string;
  /** The contacts to check; without them, the organization's contacts with an address (of companyId, of status). */
  contactIds?: string[];
  companyId?: string;
  status?: EmailStatus;
  /** Only addresses never checked (after an import or an enrichment). */
  uncheckedOnly?: boolean;
  /** Where a run over the organization's contacts stands: the last contact id checked. */
  afterId?: string;
  /** Counts carried across continue-as-new. */
  counts?: VerifyContactsCounts;
  retryInitialIntervalMs?: number;
}

export type VerifyContactsCounts = Record<EmailStatus | 'not_checked', number>;

const PAGE = 100;

/**
 * Checks contacts' addresses, one at a time on the rate-limited providers queue (a verifier's SMTP
 * probe and a provider's quota both want a steady pace). A run over an organization goes a page at a
 * time in id order and continues as new between pages, so a run over 100,000 contacts keeps a short
 * history; a contact whose check fails for good is counted `not_checked` and the run goes on.
 */
export async function verifyContactsWorkflow(input: VerifyContactsInput): Promise<VerifyContactsCounts> {
  const retry = input.retryInitialIntervalMs ?? 2000;
  const db = proxyActivities<Activities>(dbActivityOptions(retry));
  const providers = proxyActivities<Activities>({ ...providerActivityOptions(workflowInfo().taskQueue, retry), startToCloseTimeout: '3 minutes' });
  const counts: VerifyContactsCounts = input.counts ?? { unknown: 0, valid: 0, risky: 0, invalid: 0, not_checked: 0 };
  const check = async (contactId: string) => {
    try {
      const r = await providers.verifyContactEmail({ organizationId: input.organizationId, contactId });
      counts[r.status ?? 'not_checked'] += 1;
    } catch {
      counts.not_checked += 1;
    }
  };
  if (input.contactIds) {
    for (const id of input.contactIds) await check(id);
    return counts;
  }
  for (;;) {
    const ids = await db.contactsToVerify({
      organizationId: input.organizationId,
      companyId: input.companyId,
      status: input.status,
      uncheckedOnly: input.uncheckedOnly,
      after: input.afterId,
      limit: PAGE,
    });
    for (const id of ids) await check(id);
    if (ids.length < PAGE) return counts;
    await continueAsNew<typeof verifyContactsWorkflow>({ ...input, afterId: ids[ids.length - 1], counts });
  }
}

/**
 * From another workflow: starts the check of an organization's addresses never checked (of a
 * company), a run of its own (`runKey` names its cause) abandoned to run on after the caller ends.
 * A run under the same key already going is left to it.
 */
export async function verifyUnchecked(organizationId: string, runKey: string, retryInitialIntervalMs?: number, companyId?: string): Promise<void> {
  try {
    await startChild(verifyContactsWorkflow, {
      workflowId: workflowIds.verifyContacts(organizationId, runKey),
      args: [{ organizationId, companyId, uncheckedOnly: true, retryInitialIntervalMs }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: searchAttributes({ OrganizationId: organizationId, CompanyId: companyId }),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
