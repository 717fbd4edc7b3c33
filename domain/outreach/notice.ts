/**
 * The GDPR Art. 14 notice (compliance-rules.md section 2): due with the first message to a person
 * whose data came from elsewhere. It names the controller (legal name, address), the purpose, the
 * legal basis as recorded for the contact (consent, Art. 6(1)(a), with the right to withdraw it at any
 * time; or the legitimate interest pursued, Art. 6(1)(f)), the categories of data, the recipients, the source of
 * the data, the retention period, the rights (access, rectification, erasure, restriction,
 * portability, a complaint to a supervisory authority) and the privacy statement; the right to object
 * (Art. 21(4)) stands in a paragraph of its own, separate from the other rights. Dutch for nl locales,
 * English otherwise. Pure text, no I/O.
 */
export interface NoticeInput {
  senderLegalName: string;
  senderAddress: string;
  privacyUrl: string;
  retentionMonths: number;
  /** Where the person's details came from, as a reader understands it ("the website of Bouw B.V. (bouw.nl)"). */
  dataSource: string;
  /** How the person objects (or withdraws consent): the one-click unsubscribe link. */
  unsubscribeUrl: string;
  /**
   * The contact's recorded lawful basis (default legitimate interest): consent is stated as Art. 6(1)(a)
   * with the right to withdraw it at any time, legitimate interest as Art. 6(1)(f) with the right to object.
   */
  lawfulBasis?: 'consent' | 'legitimate_interest';
}

export type NoticeLanguage = 'nl' | 'en';

export function noticeLanguage(locale: string): NoticeLanguage {
  return /^nl(?:[-_]|$)/i.test(locale.trim()) ? 'nl' : 'en';
}

/** The paragraphs of the notice; the objection paragraph is the last, on its own. */
export interface Notice {
  heading: string;
  paragraphs: string[];
  /** The right to object, stated separately (Art. 21(4)). */
  objection: string;
}

export function art14Notice(n: NoticeInput, language: NoticeLanguage): Notice {
  return language === 'nl' ? dutch(n) : english(n);
}

function months(n: number, language: NoticeLanguage): string {
  if (language === 'nl') return n === 1 ? '1 maand' : `${n} maanden`;
  return n === 1 ? '1 month' : `${n} months`;
}

function dutch(n: NoticeInput): Notice {
  return {
    heading: 'Privacy (art. 14 AVG)',
    paragraphs: [
      `Verwerkingsverantwoordelijke: ${n.senderLegalName}, ${n.senderAddress}.`,
      'Doel: u als zakelijk contactpersoon benaderen over producten en diensten die voor uw organisatie relevant kunnen zijn (zakelijke direct marketing).',
      n.lawfulBasis === 'consent'
        ? `Grondslag: uw toestemming (art. 6 lid 1 sub a AVG). U kunt uw toestemming op elk moment intrekken, via de link hieronder; dat doet geen afbreuk aan de rechtmatigheid van de verwerking daarvoor.`
        : `Grondslag: ons gerechtvaardigd belang (art. 6 lid 1 sub f AVG) om bedrijven te benaderen voor wie ons aanbod relevant is.`,
      'Gegevens: uw naam, functie en zakelijke contactgegevens. Ontvangers: alleen onze dienstverleners voor e-mail en IT, in onze opdracht.',
      `Bron: ${n.dataSource}.`,
      `Bewaartermijn: ${months(n.retentionMonths, 'nl')} na het laatste contact, daarna worden uw gegevens gewist.`,
      'U heeft recht op inzage, rectificatie, wissing, beperking van de verwerking en overdraagbaarheid van uw gegevens, en u kunt een klacht indienen bij de Autoriteit Persoonsgegevens of een andere toezichthoudende autoriteit.',
      `Meer informatie: ${n.privacyUrl}`,
    ],
    objection: `${n.lawfulBasis === 'consent' ? 'Toestemming intrekken en recht van bezwaar: u kunt op elk moment uw toestemming intrekken of' : 'Recht van bezwaar: u kunt op elk moment'} bezwaar maken tegen het gebruik van uw gegevens voor direct marketing; wij stoppen dan direct. Gebruik hiervoor deze link: ${n.unsubscribeUrl}`,
  };
}

function english(n: NoticeInput): Notice {
  return {
    heading: 'Privacy notice (Art. 14 GDPR)',
    paragraphs: [
      `Controller: ${n.senderLegalName}, ${n.senderAddress}.`,
      'Purpose: to contact you as a business contact about products and services that may be relevant to your organisation (business-to-business direct marketing).',
      n.lawfulBasis === 'consent'
        ? 'Legal basis: your consent (Art. 6(1)(a) GDPR). You may withdraw your consent at any time, using the link below; this does not affect the lawfulness of the processing before its withdrawal.'
        : 'Legal basis: our legitimate interest (Art. 6(1)(f) GDPR) in approaching businesses for which our offer is relevant.',
      'Data: your name, job title and business contact details. Recipients: only our e-mail and IT service providers, acting on our behalf.',
      `Source: ${n.dataSource}.`,
      `Retention: ${months(n.retentionMonths, 'en')} after our last contact, after which your data is erased.`,
      'You have the right of access, rectification, erasure, restriction of processing and data portability, and the right to lodge a complaint with a supervisory authority.',
      `More information: ${n.privacyUrl}`,
    ],
    objection: `${n.lawfulBasis === 'consent' ? 'Withdrawing consent and the right to object: you may withdraw your consent or' : 'Right to object: you may'} object at any time to the use of your data for direct marketing, and we will stop at once. Use this link: ${n.unsubscribeUrl}`,
  };
}

export function noticeText(notice: Notice): string {
  return [notice.heading, ...notice.paragraphs, '', notice.objection].join('\n');
}
