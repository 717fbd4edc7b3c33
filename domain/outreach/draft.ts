import type { OutreachBrief } from './brief';
import type { StepChannel } from './enrollments';
import { noticeLanguage } from './notice';

/**
 * A sequence step's draft: what the writer is given (the step, the brief's sourced facts, who it is
 * for, in which language and register), the deterministic template writer used when no model is
 * configured, and the message's `why` (interface spec "Why object"): the signal, the facts, the score
 * reasons, the compliance rule it goes out under and why a person reviews it. Pure.
 */
export const TEMPLATE_DRAFT_WRITER = 'template-writer@1.0.0';
/** The prompt key of a sequence draft (the model writer's; template drafts are scored under it too, by their writer's version). */
export const DRAFT_PROMPT_KEY = 'sequence-draft';

export interface DraftInput {
  channel: StepChannel;
  /** The step's position (1-based) and whether an e-mail went out earlier in the sequence. */
  position: number;
  followUp: boolean;
  instructions: string | null;
  brief: OutreachBrief | null;
  campaign: { name: string; goal: string | null };
  contact: { fullName: string; title: string | null };
  company: { name: string };
  /** The recipient's locale ("nl-NL") and the organization's register. */
  locale: string;
  formality: 'formal' | 'informal' | string;
  sender: { name: string | null };
  /** The step variant it is written for: its key and its own subject (null: the writer's); its instructions are `instructions`. */
  variant?: { key: string; subject: string | null } | null;
  /** A redraft: the rejected text and what the person said about it. */
  rejection?: { reason: string | null; subject: string | null; body: string | null } | null;
  /** A second try: the claims of the first draft that no fact supports (domain/outreach/grounding.ts), to leave out. */
  avoid?: string[];
}

export interface WrittenDraft {
  subject: string | null;
  body: string;
  model: string;
  promptKey: string | null;
  promptVersion: string | null;
  /** How sure the writer is that the draft needs no edit, 0..1. */
  confidence: number;
  /** What a reviewer should look at (no sourced facts, a redraft the template cannot adapt, …). */
  risks: string[];
}

const WORDS: Record<
  'nl' | 'en',
  {
    greeting: (name: string, formal: boolean) => string;
    opener: (title: string) => string;
    fact: (claim: string) => string;
    offer: (products: string) => string;
    ask: string;
    followUp: (title: string) => string;
    close: string;
    subject: (title: string) => string;
    reSubject: (s: string) => string;
    us: string;
  }
> = {
  nl: {
    greeting: (name, formal) => (formal ? `Geachte ${name},` : `Beste ${name.split(/\s+/)[0]},`),
    opener: (title) => `Ik las de publicatie "${title}".`,
    fact: (claim) => `Wat mij opviel: ${claim}.`,
    offer: (products) => `Wij ondersteunen bij dit soort projecten met ${products}.`,
    ask: 'Past een kort gesprek van twintig minuten in de komende weken?',
    followUp: (title) => `Graag kom ik nog even terug op mijn bericht over "${title}".`,
    close: 'Met vriendelijke groet,',
    subject: (title) => `Uw project: ${title}`,
    reSubject: (s) => `Re: ${s}`,
    us: 'onze diensten',
  },
  en: {
    greeting: (name, formal) => (formal ? `Dear ${name},` : `Hi ${name.split(/\s+/)[0]},`),
    opener: (title) => `I read the publication "${title}".`,
    fact: (claim) => `What caught my eye: ${claim}.`,
    offer: (products) => `We support projects like this with ${products}.`,
    ask: 'Would a short twenty-minute call in the coming weeks suit you?',
    followUp: (title) => `A short follow-up on my message about "${title}".`,
    close: 'Kind regards,',
    subject: (title) => `Your project: ${title}`,
    reSubject: (s) => `Re: ${s}`,
    us: 'our services',
  },
};

/** The first sourced fact worth quoting besides the title itself. */
function leadFact(brief: OutreachBrief | null): string | null {
  const facts = brief?.facts ?? [];
  return facts.find((f) => !f.claim.startsWith('Published'))?.claim ?? null;
}

/**
 * The deterministic writer: only what the brief holds, in the recipient's language (Dutch for nl,
 * English otherwise) and the organization's register. Tasks (phone, LinkedIn) get the step's
 * instructions and what to refer to. It cannot rewrite in the light of a rejection: a redraft says
 * so in `risks`, so the reviewer knows to edit it.
 */
export function templateDraft(input: DraftInput): WrittenDraft {
  // The template writer knows Dutch and English; the footer and the notice have German and French too.
  const language = noticeLanguage(input.locale) === 'nl' ? 'nl' : 'en';
  const w = WORDS[language];
  const title = input.brief?.signal?.title ?? input.campaign.name;
  const products = input.brief?.products.map((p) => p.name).join(', ') || w.us;
  const risks: string[] = [];
  if (!input.brief || input.brief.facts.length === 0) risks.push('no_sourced_facts');
  if (input.rejection) risks.push('redraft_by_template');
  const base = { model: TEMPLATE_DRAFT_WRITER, promptKey: null, promptVersion: null };

  if (input.channel !== 'email') {
    const body = [
      input.instructions ??
        (input.channel === 'phone'
          ? `Call ${input.contact.fullName} about "${title}".`
          : `Connect with ${input.contact.fullName} on LinkedIn about "${title}".`),
      `${input.contact.fullName}${input.contact.title ? `, ${input.contact.title}` : ''} (${input.company.name})`,
    ].join('\n');
    return { ...base, subject: null, body, confidence: 0.9, risks };
  }

  const fact = leadFact(input.brief);
  const paragraphs = input.followUp
    ? [w.greeting(input.contact.fullName, input.formality !== 'informal'), `${w.followUp(title)} ${w.offer(products)}`, w.ask]
    : [
        w.greeting(input.contact.fullName, input.formality !== 'informal'),
        [w.opener(title), fact ? w.fact(fact) : ''].filter(Boolean).join(' '),
        w.offer(products),
        w.ask,
      ];
  const signature = [w.close, input.sender.name ?? ''].filter(Boolean).join('\n');
  const written = input.followUp ? w.reSubject(w.subject(title)) : w.subject(title);
  // A variant's own subject goes as it is given.
  const subject = input.variant?.subject ?? written;
  return { ...base, subject: subject.slice(0, 200), body: `${paragraphs.join('\n\n')}\n\n${signature}`, confidence: risks.length ? 0.4 : 0.6, risks };
}

export interface WhyCompliance {
  country: string;
  locale: string;
  /** The channel policy rule the message goes out under. */
  rule: string;
  requirements: string[];
}

export interface MessageWhy {
  signal: { id: string; title: string; url: string | null } | null;
  facts: Array<{ claim: string; sourceUrl: string }>;
  scoreReasons: string[];
  compliance: WhyCompliance;
  reviewReasons: string[];
  risks: string[];
}

/**
 * The draft's grounding. `art14_notice` joins the requirements on the first e-mail to a person (the
 * notice goes with it); `review_mode` is a review reason in review mode, beside each risk the writer
 * saw and a redraft's reason.
 */
export function draftWhy(w: {
  brief: OutreachBrief | null;
  compliance: { country: string; locale: string; rule: string; requirements: string[] };
  channel: StepChannel;
  firstToPerson: boolean;
  mode: string;
  risks: string[];
  rejectionReason?: string | null;
}): MessageWhy {
  const requirements = [...new Set([...w.compliance.requirements, ...(w.channel === 'email' && w.firstToPerson ? ['art14_notice'] : [])])];
  const reviewReasons = [
    ...(w.mode === 'review' && w.channel === 'email' ? ['review_mode'] : []),
    ...w.risks,
    ...(w.rejectionReason !== undefined ? [`redraft: ${w.rejectionReason ?? 'rejected without a reason'}`] : []),
  ];
  return {
    signal: w.brief?.signal ?? null,
    facts: w.brief?.facts ?? [],
    scoreReasons: w.brief?.scoreReasons ?? [],
    compliance: { country: w.compliance.country, locale: w.compliance.locale, rule: w.compliance.rule, requirements },
    reviewReasons,
    risks: w.risks,
  };
}

/** How many of a text's last non-empty lines make its signature block. */
const SIGNATURE_LINES = 4;

/**
 * A draft signed by one sender, signed by another (a pooled first e-mail booked on another mailbox than
 * the one it was drafted for): a line of the closing block that is exactly the old sender's name becomes
 * the new name (or goes, when the new mailbox has none). The name anywhere else, a contact who shares a
 * first name with the sender included, is left as it is.
 */
export function resignText(text: string, oldName: string, newName: string): string {
  const old = oldName.trim();
  if (!old) return text;
  const lines = text.split('\n');
  let seen = 0;
  for (let i = lines.length - 1; i >= 0 && seen < SIGNATURE_LINES; i--) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    seen++;
    if (line.trim() !== old) continue;
    if (newName.trim()) lines[i] = line.replace(old, newName.trim());
    else lines.splice(i, 1);
    return lines.join('\n');
  }
  return text;
}
