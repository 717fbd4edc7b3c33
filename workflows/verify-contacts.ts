import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { continueAsNew, isCancellation, ParentClosePolicy, proxyActivities, sleep, startChild, workflowInfo } from '@temporalio/workflow';
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
  /** Contacts whose answer was "not now", carried across continue-as-new to be checked again at the end. */
  deferred?: string[];
  /** The wait before checking them again (default 15 minutes); tests shorten it. */
  deferredWaitMs?: number;
  retryInitialIntervalMs?: number;
}

export type VerifyContactsCounts = Record<EmailStatus | 'not_checked', number>;

const PAGE = 100;
/** Contacts of a given list checked per run before it continues as new (a short history). */
const LIST_CHUNK = 500;
/** Rounds of checking again the addresses whose answer was "not now", and how many are kept for them. */
const DEFERRED_ROUNDS = 3;
const DEFERRED_MAX = 1000;
const DEFERRED_WAIT_MS = 15 * 60_000;

/**
 * Checks contacts' addresses, one at a time on the rate-limited providers queue (a verifier's SMTP
 * probe and a provider's quota both want a steady pace). A run over an organization goes a page at a
 * time in id order, a given list a chunk at a time, continuing as new in between, so a run over
 * 100,000 contacts keeps a short history. An answer "not now" (greylisting) leaves the address
 * unknown and it is checked again after a durable wait, up to three rounds, without holding up the
 * others. A contact whose check fails for good is counted `not_checked` and the run goes on.
 */
export async function verifyContactsWorkflow(input: VerifyContactsInput): Promise<VerifyContactsCounts> {
  const retry = input.retryInitialIntervalMs ?? 2000;
  const db = proxyActivities<Activities>(dbActivityOptions(retry));
  const providers = proxyActivities<Activities>({ ...providerActivityOptions(workflowInfo().taskQueue, retry), startToCloseTimeout: '3 minutes' });
  const counts: VerifyContactsCounts = input.counts ?? { unknown: 0, valid: 0, risky: 0, invalid: 0, not_checked: 0 };
  let deferred = input.deferred ?? [];
  const check = async (contactId: string) => {
    try {
      const r = await providers.verifyContactEmail({ organizationId: input.organizationId, contactId });
      if (r.deferred && deferred.length < DEFERRED_MAX) deferred.push(contactId);
      else counts[r.status ?? 'not_checked'] += 1;
    } catch (err) {
      // A cancelled run stops; a check that failed for good is counted and the run goes on.
      if (isCancellation(err)) throw err;
      counts.not_checked += 1;
    }
  };
  if (input.contactIds) {
    for (const id of input.contactIds.slice(0, LIST_CHUNK)) await check(id);
    const rest = input.contactIds.slice(LIST_CHUNK);
    if (rest.length) await continueAsNew<typeof verifyContactsWorkflow>({ ...input, contactIds: rest, counts, deferred });
  } else {
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
      if (ids.length < PAGE) break;
      await continueAsNew<typeof verifyContactsWorkflow>({ ...input, afterId: ids[ids.length - 1], counts, deferred });
    }
  }
  for (let round = 0; round < DEFERRED_ROUNDS && deferred.length; round++) {
    await sleep(input.deferredWaitMs ?? DEFERRED_WAIT_MS);
    const again = deferred;
    deferred = [];
    for (const id of again) await check(id);
  }
  // Still "not now" after the last round: they stay unknown (accept and the send look again).
  counts.unknown += deferred.length;
  return counts;
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
