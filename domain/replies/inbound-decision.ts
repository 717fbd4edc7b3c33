import { classifyReplyByRules, machineKind, type ReplyInput } from './classify';
import { decideReport, type InboundFacts, type ReportDecision } from './delivery-report';
import type { InboundKind } from './plan';
import type { ReplyClassification } from './types';

/**
 * The whole decision for one received message, by rules and with no I/O: a report (bounce,
 * complaint, a report that asks for nothing), else an auto-reply, an out-of-office notice or a
 * person's reply with the rules' classification. The worker's parse thread and `npm run
 * inbound:explain` both call it; the worker may then ask a model about a reply.
 */
export interface InboundDecision {
  kind: InboundKind;
  /** A report's decision (reason, status, recipient, original Message-ID), null for other kinds. */
  report: ReportDecision | null;
  /** The auto-reply marker (a header and its value, or the subject), for an auto-reply. */
  marker: string | null;
  /** The rules' classification of a reply or an out-of-office notice. */
  rules: ReplyClassification | null;
}

export function decideInbound(facts: InboundFacts, when: Pick<ReplyInput, 'sentAt' | 'senderZone'>): InboundDecision {
  const report = decideReport(facts);
  if (report) return { kind: report.kind, report, marker: null, rules: null };
  const input: ReplyInput = {
    subject: facts.subject,
    text: facts.text,
    fromAddress: facts.fromAddress,
    sentAt: when.sentAt,
    senderZone: when.senderZone,
    header: (name) => facts.headers[name.toLowerCase()],
  };
  const machine = machineKind(input);
  if (machine.kind === 'auto_reply' && !machine.outOfOffice) return { kind: 'auto_reply', report: null, marker: machine.marker, rules: null };
  const rules = classifyReplyByRules(input);
  return { kind: rules.intent === 'out_of_office' ? 'out_of_office' : 'reply', report: null, marker: null, rules };
}
