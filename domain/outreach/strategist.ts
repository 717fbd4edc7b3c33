import type { OutreachBrief } from './brief';
import { mentions } from './brief';
import type { ContactChannels, StepChannel } from './enrollments';

/**
 * The strategist's decisions, pure: which contacts (ranked by the industry profile's personas, only
 * those the compliance gate lets through, each with the channels it allows), which steps, and the
 * words (goal, brief, rationale, step instructions) of the deterministic writer, used when no model
 * is configured. activities/strategist.ts loads what these need and stores the proposal.
 */
export const TEMPLATE_WRITER = 'template-writer@1.0.0';

export interface CandidateContact {
  id: string;
  fullName: string;
  title: string | null;
  /** What the compliance gate allows for the contact (contactChannels), with the policy rows behind it. */
  channels: ContactChannels;
  ruleIds: string[];
}

export interface PlannedContact {
  contact_id: string;
  full_name: string;
  title: string | null;
  persona: string | null;
  rank: number;
  channels: StepChannel[];
  email_route: 'personal' | 'generic' | null;
  rule_ids: string[];
}

export interface PlannedStep {
  channel: StepChannel;
  delayDays: number;
  instructions: string;
}

/** The persona a title matches: the highest priority one whose keyword (or segment) it mentions. */
export function personaOf(title: string | null, personas: OutreachBrief['personas']): OutreachBrief['personas'][number] | null {
  if (!title) return null;
  return (
    [...personas].sort((a, b) => b.priority - a.priority).find((p) => mentions(title, p.segment) || p.titleKeywords.some((k) => mentions(title, k))) ?? null
  );
}

/**
 * Contacts by persona priority (a contact matching no persona after those that do, in the order
 * given), without those the gate leaves no channel for. The company's generic address is one inbox:
 * only the first contact routed to it keeps the e-mail steps, so one company is not mailed once per
 * person there.
 */
export function planContacts(candidates: CandidateContact[], personas: OutreachBrief['personas'], max = 3): PlannedContact[] {
  const ranked = candidates
    .map((c, i) => ({ c, i, persona: personaOf(c.title, personas) }))
    .sort((x, y) => (y.persona?.priority ?? -Infinity) - (x.persona?.priority ?? -Infinity) || x.i - y.i);
  const out: PlannedContact[] = [];
  let genericTaken = false;
  for (const { c, persona } of ranked) {
    let channels = [...c.channels.usable];
    let route = c.channels.email;
    if (route === 'generic') {
      if (genericTaken) {
        channels = channels.filter((ch) => ch !== 'email');
        route = null;
      } else genericTaken = true;
    }
    if (channels.length === 0) continue;
    out.push({
      contact_id: c.id,
      full_name: c.fullName,
      title: c.title,
      persona: persona?.segment ?? null,
      rank: out.length + 1,
      channels,
      email_route: route,
      rule_ids: c.ruleIds,
    });
    if (out.length >= max) break;
  }
  return out;
}

/**
 * The steps, from the channels the planned contacts allow: an e-mail first where e-mail is allowed,
 * a call two business days later, a LinkedIn message the day after, a follow-up e-mail three days on.
 * A contact's sequence skips the steps its own channels do not allow.
 */
export function planSteps(contacts: PlannedContact[]): Array<{ channel: StepChannel; delayDays: number }> {
  const has = (ch: StepChannel) => contacts.some((c) => c.channels.includes(ch));
  const steps: Array<{ channel: StepChannel; delayDays: number }> = [];
  if (has('email')) steps.push({ channel: 'email', delayDays: 0 });
  if (has('phone')) steps.push({ channel: 'phone', delayDays: steps.length ? 2 : 0 });
  if (has('linkedin')) steps.push({ channel: 'linkedin', delayDays: steps.length ? 1 : 0 });
  if (has('email')) steps.push({ channel: 'email', delayDays: 3 });
  return steps;
}

export interface WriterInput {
  brief: OutreachBrief;
  company: { name: string; countryCode: string | null };
  contacts: PlannedContact[];
  steps: Array<{ channel: StepChannel; delayDays: number }>;
  proposition: string | null;
}

export interface WrittenProposal {
  name: string;
  goal: string;
  brief: string;
  rationale: string;
  steps: PlannedStep[];
  model: string;
  promptKey: string | null;
  promptVersion: string | null;
  promptHash: string | null;
}

/** The deterministic writer: only what the brief holds, said plainly; `model` says it wrote it. */
export function templateWriter(input: WriterInput): WrittenProposal {
  const { brief, company } = input;
  const products = brief.products.map((p) => p.name);
  const offer = products.length ? products.join(', ') : 'our services';
  const signal = brief.signal;
  const facts = brief.facts.map((f) => `- ${f.claim} (${f.sourceUrl})`).join('\n');
  const who = input.contacts
    .map(
      (c) =>
        `${c.full_name}${c.title ? ` (${c.title})` : ''}${c.persona ? `, ${c.persona}` : ''}: ${c.channels.join(', ')}${c.email_route === 'generic' ? ' (e-mail to the company’s published address)' : ''}`,
    )
    .join('; ');
  const rationale = [
    signal
      ? `${company.name} is behind "${signal.title}"${signal.url ? ` (${signal.url})` : ''}, published now: the moment to offer ${offer}.`
      : `${company.name} has an open opportunity for ${offer}.`,
    brief.scoreReasons.length ? `Scored for: ${brief.scoreReasons.join('; ')}.` : '',
    brief.products.length ? `Fit: ${brief.products.map((p) => `${p.name} (${p.matched.join(', ')})`).join('; ')}.` : '',
    who ? `Contacts: ${who}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const cite = signal ? `the publication "${signal.title}"` : 'the project';
  const instruction = (channel: StepChannel, index: number): string => {
    const first = input.steps.findIndex((s) => s.channel === channel) === index;
    switch (channel) {
      case 'email':
        return first
          ? `Short first e-mail: refer to ${cite}, use only the facts of the brief, say in one sentence how ${offer} fits, ask for a 20-minute call.`
          : `Brief follow-up to the first e-mail: one new fact or angle from the brief, repeat the question for a call.`;
      case 'phone':
        return `Call: introduce yourself and the company, refer to ${cite}, ask who handles ${offer}; offer the right to object at the start of the call.`;
      case 'linkedin':
        return `LinkedIn (manual, one to one): a connection request with a personal note referring to ${cite}.`;
    }
  };
  return {
    name: `${company.name}: ${signal?.title ?? 'opportunity'}`.slice(0, 200),
    goal: `A first meeting with ${company.name} about ${offer} for ${signal ? `"${signal.title}"` : 'their project'}.`,
    brief: [
      `Opportunity: ${signal?.title ?? 'manual opportunity'}`,
      facts ? `Facts (only these may be used):\n${facts}` : 'No sourced facts: do not state any.',
      input.proposition ? `Our proposition: ${input.proposition}` : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
    rationale,
    steps: input.steps.map((s, i) => ({ ...s, instructions: instruction(s.channel, i) })),
    model: TEMPLATE_WRITER,
    promptKey: null,
    promptVersion: null,
    promptHash: null,
  };
}
