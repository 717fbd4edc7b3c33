import { randomUUID } from 'node:crypto';
import { ApplicationFailure, log } from '@temporalio/activity';
import { mailboxForHealthCheck, recordHealthCheck } from '../db/queries/mailbox-health';
import { asOrganization } from '../db/tenancy';
import type { DB } from '../db/pool';
import { invalidDomainResult, type HealthResult } from '../domain/deliverability/score';
import { checkDomainHealth, InvalidMailDomainError } from './providers/dns/health-facts';
import type { DnsResolver } from './providers/dns/resolver';

export interface MailboxHealthInput {
  organizationId: string;
  mailboxId: string;
  /** The stored check's id: a retry with the same id stores it once (the workflow passes one). */
  checkId?: string;
}

export interface MailboxHealthOutcome {
  result: HealthResult;
  /** When the mailbox is sendable: the enrollments whose approved sends it held, to wake (notifySequences). */
  waitingEnrollmentIds: string[];
}

/** The mailbox health check (POST /mailboxes/{id}/health runs the same steps; the daily Schedule runs this). */
export function createMailboxHealthActivities(deps: { db: DB; dns: DnsResolver }) {
  /**
   * Checks under way in this process, by mailbox: the first send of a new mailbox's campaign asks for a
   * check from every one of its messages at once (hundreds), and one DNS check answers them all. The
   * one that ran it stores it; the others answer its result (the mailbox's health is then set).
   */
  const underway = new Map<string, Promise<MailboxHealthOutcome>>();
  return {
    async checkMailboxHealth(input: MailboxHealthInput): Promise<MailboxHealthOutcome> {
      const running = underway.get(input.mailboxId);
      if (running) return running.then((o) => ({ result: o.result, waitingEnrollmentIds: [] }));
      const check = runCheck(input);
      underway.set(input.mailboxId, check);
      try {
        return await check;
      } finally {
        underway.delete(input.mailboxId);
      }
    },
  };

  async function runCheck(input: MailboxHealthInput): Promise<MailboxHealthOutcome> {
    const mailbox = await asOrganization(deps.db, input.organizationId, (tx) => mailboxForHealthCheck(tx, input.mailboxId));
    if (!mailbox) throw ApplicationFailure.nonRetryable(`mailbox ${input.mailboxId} not found`, 'NotFound');
    let result: HealthResult;
    try {
      result = await checkDomainHealth(deps.dns, mailbox.domain, mailbox.dkim_selector);
    } catch (err) {
      // A domain that cannot be checked is a failed check, so the mailbox holds its sends.
      if (!(err instanceof InvalidMailDomainError)) throw err;
      result = invalidDomainResult(mailbox.domain, err.message);
    }
    const { waitingEnrollmentIds } = await asOrganization(deps.db, input.organizationId, (tx) =>
      recordHealthCheck(tx, { id: input.checkId ?? randomUUID(), organizationId: input.organizationId, mailboxId: mailbox.id, result }),
    );
    log.info('mailbox health checked', { mailboxId: mailbox.id, score: result.score, sendable: result.sendable });
    return { result, waitingEnrollmentIds };
  }
}
