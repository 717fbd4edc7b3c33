import { art14Notice, noticeLanguage, type NoticeLanguage, type NoticeSource, noticeText } from './notice';

/**
 * The e-mail as it leaves: the draft's subject and body, then what every message carries (the
 * sender's legal name and address, and the opt-out: compliance-rules.md section 1), the AI
 * disclosure footer when the organization asks for it and a model or writer produced the text
 * (section 5), and on the first message to a person the Art. 14 notice (section 2). The headers:
 * `Message-ID` from the message id, and the one-click unsubscribe pair of RFC 8058 (section 3).
 * Pure: no clock (the SMTP client adds `Date`), no I/O.
 */
export interface MailAddress {
  address: string;
  /** The display name ("Anna de Vries"); the SMTP client encodes it when it is not ASCII. */
  name?: string | null;
}

/** The compliance settings an e-mail needs (the compliance_settings row). */
export interface ComposeCompliance {
  sender_legal_name: string | null;
  sender_address: string | null;
  privacy_url: string | null;
  unsubscribe_mailto: string | null;
  retention_months: number;
  ai_disclosure: 'footer' | 'none' | string;
}

export interface ComposeInput {
  /** The messages row's id: names the Message-ID and the unsubscribe token. */
  messageId: string;
  subject: string;
  body: string;
  from: { address: string; displayName?: string | null };
  to: { address: string; name?: string | null };
  /** The recipient's locale ("nl-NL"): the notice and the footers are in its language (nl, de, fr; English otherwise). */
  locale: string;
  /** The contact's recorded lawful basis, which the Art. 14 notice states (default legitimate interest). */
  lawfulBasis?: 'consent' | 'legitimate_interest';
  /** The first message to this person: it carries the Art. 14 notice. */
  firstToPerson: boolean;
  compliance: ComposeCompliance;
  /** A model or the deterministic writer produced the text (a person's own text: false). */
  aiWritten: boolean;
  /** Where the person's details came from, for the notice (noticeSource in ./notice: told in the message's language). */
  source: NoticeSource;
  /** The one-click link: `${PUBLIC_BASE_URL}/u/${token}` (unsubscribeUrl in domain/outreach/unsubscribe-token.ts). */
  unsubscribeUrl: string;
  /** The domain part of the Message-ID: the mailbox's domain, so it aligns with the From address. */
  messageIdDomain: string;
  /** A reply: the Message-ID it answers and the thread's earlier ones (RFC 5322 In-Reply-To, References). */
  threading?: { inReplyTo: string | null; references: readonly string[] };
}

export interface ComposedEmail {
  from: MailAddress;
  to: MailAddress;
  subject: string;
  /** Exactly these headers, besides From, To, Subject and the MIME headers the client writes. */
  headers: {
    'Message-ID': string;
    'List-Unsubscribe': string;
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click';
    'In-Reply-To'?: string;
    References?: string;
  };
  text: string;
  html?: string;
  /** Whether the Art. 14 notice is in the text (store it on the message's `why.compliance`). */
  art14Notice: boolean;
  /** Whether the AI disclosure footer is in the text. */
  aiFooter: boolean;
}

/** The compliance settings are missing something this message must carry; nothing can be sent until an admin sets them. */
export class IncompleteComplianceSettings extends Error {
  constructor(readonly missing: string[]) {
    super(`the compliance settings lack ${missing.join(', ')}: every e-mail names the sender, and the first to a person carries the privacy notice`);
    this.name = 'IncompleteComplianceSettings';
  }
}

/** Which settings a message needs and lacks: sender name and address always; the privacy URL for a first message. */
export function missingComplianceSettings(c: ComposeCompliance, firstToPerson: boolean): string[] {
  const missing: string[] = [];
  if (!c.sender_legal_name?.trim()) missing.push('sender_legal_name');
  if (!c.sender_address?.trim()) missing.push('sender_address');
  if (firstToPerson && !c.privacy_url?.trim()) missing.push('privacy_url');
  return missing;
}

export const LIST_UNSUBSCRIBE_POST = 'List-Unsubscribe=One-Click' as const;

/** `<{uuid}@{domain}>`: one message, one Message-ID, the same on every attempt to send it. */
/** In-Reply-To and References of a reply (only Message-IDs in angle brackets, the last 20 references), none when it answers nothing. */
export function threadingHeaders(t: ComposeInput['threading']): { 'In-Reply-To'?: string; References?: string } {
  const ids = (t?.references ?? []).filter((id) => MESSAGE_ID.test(id));
  const refs = [...new Set(ids)].slice(-20);
  const inReplyTo = t?.inReplyTo && MESSAGE_ID.test(t.inReplyTo) ? t.inReplyTo : undefined;
  return { ...(inReplyTo ? { 'In-Reply-To': inReplyTo } : {}), ...(refs.length ? { References: refs.join(' ') } : {}) };
}
const MESSAGE_ID = /^<[^<>\s]{1,500}>$/;

export function messageIdHeader(messageId: string, domain: string): string {
  return `<${messageId.toLowerCase()}@${domain.toLowerCase()}>`;
}

/**
 * The mailto of List-Unsubscribe: the organization's unsubscribe_mailto, else the sending mailbox
 * itself with the subject "unsubscribe" (a reply there is read as an unsubscribe request).
 */
export function unsubscribeMailto(c: Pick<ComposeCompliance, 'unsubscribe_mailto'>, fromAddress: string): string {
  const configured = c.unsubscribe_mailto?.trim();
  if (configured) return configured;
  return `mailto:${fromAddress}?subject=unsubscribe`;
}

/** One header, https first (RFC 8058 needs it; the mailto serves clients without one-click). */
/**
 * The List-Unsubscribe header: the one-click URL and the mailto. White space (CR and LF above all)
 * and angle brackets are stripped from both, so a stored value can never end the header or add one.
 */
export function listUnsubscribeHeader(unsubscribeUrl: string, mailto: string): string {
  const clean = (uri: string) => uri.replace(/[\s<>]/g, '');
  return `<${clean(unsubscribeUrl)}>, <${clean(mailto)}>`;
}

const FOOTER: Record<NoticeLanguage, { optOut: (url: string) => string; ai: string }> = {
  nl: {
    optOut: (url) => `Geen berichten meer van ons ontvangen? Meld u af: ${url}`,
    ai: 'Dit bericht is opgesteld met behulp van AI.',
  },
  en: {
    optOut: (url) => `Rather not hear from us again? Unsubscribe: ${url}`,
    ai: 'This message was written with the help of AI.',
  },
  de: {
    optOut: (url) => `Sie möchten keine Nachrichten mehr von uns erhalten? Abmelden: ${url}`,
    ai: 'Diese Nachricht wurde mit Hilfe von KI verfasst.',
  },
  fr: {
    optOut: (url) => `Vous ne souhaitez plus recevoir nos messages ? Désinscription : ${url}`,
    ai: 'Ce message a été rédigé avec l’aide de l’IA.',
  },
};

export function composeEmail(input: ComposeInput): ComposedEmail {
  const c = input.compliance;
  const missing = missingComplianceSettings(c, input.firstToPerson);
  if (missing.length) throw new IncompleteComplianceSettings(missing);
  const language = noticeLanguage(input.locale);
  const aiFooter = c.ai_disclosure === 'footer' && input.aiWritten;

  const footer = [
    ...(aiFooter ? [FOOTER[language].ai] : []),
    `${c.sender_legal_name!.trim()}, ${c.sender_address!.trim()}`,
    FOOTER[language].optOut(input.unsubscribeUrl),
  ];
  const parts = [input.body.replace(/\s+$/, ''), `-- \n${footer.join('\n')}`];
  if (input.firstToPerson) {
    const notice = art14Notice(
      {
        senderLegalName: c.sender_legal_name!.trim(),
        senderAddress: c.sender_address!.trim(),
        privacyUrl: c.privacy_url!.trim(),
        retentionMonths: c.retention_months,
        source: input.source,
        unsubscribeUrl: input.unsubscribeUrl,
        lawfulBasis: input.lawfulBasis,
      },
      language,
    );
    parts.push(noticeText(notice));
  }

  return {
    from: { address: input.from.address, name: input.from.displayName ?? null },
    to: { address: input.to.address, name: input.to.name ?? null },
    subject: input.subject,
    headers: {
      'Message-ID': messageIdHeader(input.messageId, input.messageIdDomain),
      'List-Unsubscribe': listUnsubscribeHeader(input.unsubscribeUrl, unsubscribeMailto(c, input.from.address)),
      'List-Unsubscribe-Post': LIST_UNSUBSCRIBE_POST,
      ...threadingHeaders(input.threading),
    },
    text: `${parts.join('\n\n')}\n`,
    art14Notice: input.firstToPerson,
    aiFooter,
  };
}
