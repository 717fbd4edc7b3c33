/**
 * The GDPR Art. 14 notice (compliance-rules.md section 2): due with the first message to a person
 * whose data came from elsewhere. It names the controller (legal name, address), the purpose, the
 * legal basis as recorded for the contact (consent, Art. 6(1)(a), with the right to withdraw it at any
 * time; or the legitimate interest pursued, Art. 6(1)(f)), the categories of data, the recipients, the
 * source of the data and whether it was public, the retention period, the rights (access,
 * rectification, erasure, restriction, portability, a complaint to a supervisory authority) and the
 * privacy statement; the right to object (Art. 21(4)) stands in a paragraph of its own, separate from
 * the other rights.
 *
 * Every line is in the recipient's language: the wording lives in one table, NOTICE_WORDS, a row per
 * language (Dutch, English, German, French; English for any other locale). The source is told from
 * what was recorded about the contact (noticeSource), never from a stored English sentence, so that
 * it too follows the language. Text a person typed (an import's or a contact's source description)
 * is quoted as they wrote it. Pure text, no I/O.
 */

export const NOTICE_LANGUAGES = ['nl', 'en', 'de', 'fr'] as const;
export type NoticeLanguage = (typeof NOTICE_LANGUAGES)[number];

/** The language of a locale ("nl-BE" -> nl, "de_AT" -> de, "fr" -> fr); English for any other. */
export function noticeLanguage(locale: string): NoticeLanguage {
  const lang = /^([a-z]{2})(?:[-_]|$)/i.exec(locale.trim())?.[1]?.toLowerCase();
  return (NOTICE_LANGUAGES as readonly string[]).includes(lang ?? '') ? (lang as NoticeLanguage) : 'en';
}

/** Where the person's details came from, as the notice tells it. */
export type NoticeSource =
  /** The company's own public website (the page, or the domain, when known). */
  | { kind: 'website'; companyName: string; url?: string | null }
  /** An enrichment service (Hunter) that collects business contact details published online, searched for the company's domain. */
  | { kind: 'provider'; provider: string; domain?: string | null }
  /** A list the organization imported; the description is the one given with the import. */
  | { kind: 'import'; description: string }
  /** Recorded by hand, with the description the person gave. */
  | { kind: 'manual'; description: string }
  /** Named by a colleague in a reply to one of our messages. */
  | { kind: 'referral'; companyName: string }
  /** A public register or an official publication (a permit, a tender) the signal came from. */
  | { kind: 'public_register'; description?: string | null }
  /** The person wrote to us first (no contact record). */
  | { kind: 'inbound' };

export type LawfulBasis = 'consent' | 'legitimate_interest';

/** One language's wording of the notice: every generated line, with the source of each kind. */
export interface NoticeWords {
  heading: string;
  controller: (legalName: string, address: string) => string;
  purpose: string;
  basis: Record<LawfulBasis, string>;
  dataAndRecipients: string;
  source: (source: string) => string;
  sources: {
    website: (companyName: string, url: string | null) => string;
    provider: (provider: string, domain: string | null) => string;
    import: (description: string) => string;
    referral: (companyName: string) => string;
    publicRegister: (description: string | null) => string;
    inbound: string;
  };
  retention: (months: number) => string;
  rights: string;
  moreInformation: (privacyUrl: string) => string;
  objection: Record<LawfulBasis, (unsubscribeUrl: string) => string>;
}

/** " (x)" when there is an x. */
const paren = (x: string | null) => (x ? ` (${x})` : '');

export const NOTICE_WORDS: Record<NoticeLanguage, NoticeWords> = {
  nl: {
    heading: 'Privacy (art. 14 AVG)',
    controller: (name, address) => `Verwerkingsverantwoordelijke: ${name}, ${address}`,
    purpose:
      'Doel: u als zakelijk contactpersoon benaderen over producten en diensten die voor uw organisatie relevant kunnen zijn (zakelijke direct marketing).',
    basis: {
      consent:
        'Grondslag: uw toestemming (art. 6 lid 1 sub a AVG). U kunt uw toestemming op elk moment intrekken, via de link hieronder; dat doet geen afbreuk aan de rechtmatigheid van de verwerking daarvoor.',
      legitimate_interest: 'Grondslag: ons gerechtvaardigd belang (art. 6 lid 1 sub f AVG) om bedrijven te benaderen voor wie ons aanbod relevant is.',
    },
    dataAndRecipients: 'Gegevens: uw naam, functie en zakelijke contactgegevens. Ontvangers: alleen onze dienstverleners voor e-mail en IT, in onze opdracht.',
    source: (s) => `Bron: ${s}`,
    sources: {
      website: (company, url) => `de openbare website van ${company}${paren(url)}`,
      provider: (provider, domain) =>
        `${provider}, een dienst die openbaar gepubliceerde zakelijke contactgegevens verzamelt${domain ? ` (gezocht op ${domain})` : ''}`,
      import: (d) => `een door ons geïmporteerde lijst (${d})`,
      referral: (company) => `iemand van ${company} die u noemde in een antwoord op ons bericht (geen openbare bron)`,
      publicRegister: (d) => `een openbaar register of een openbare bekendmaking${paren(d)}`,
      inbound: 'uw bericht aan ons',
    },
    retention: (n) => `Bewaartermijn: ${n === 1 ? '1 maand' : `${n} maanden`} na het laatste contact, daarna worden uw gegevens gewist.`,
    rights:
      'U heeft recht op inzage, rectificatie, wissing, beperking van de verwerking en overdraagbaarheid van uw gegevens, en u kunt een klacht indienen bij de Autoriteit Persoonsgegevens of een andere toezichthoudende autoriteit.',
    moreInformation: (url) => `Meer informatie: ${url}`,
    objection: {
      legitimate_interest: (url) =>
        `Recht van bezwaar: u kunt op elk moment bezwaar maken tegen het gebruik van uw gegevens voor direct marketing; wij stoppen dan direct. Gebruik hiervoor deze link: ${url}`,
      consent: (url) =>
        `Toestemming intrekken en recht van bezwaar: u kunt op elk moment uw toestemming intrekken of bezwaar maken tegen het gebruik van uw gegevens voor direct marketing; wij stoppen dan direct. Gebruik hiervoor deze link: ${url}`,
    },
  },
  en: {
    heading: 'Privacy notice (Art. 14 GDPR)',
    controller: (name, address) => `Controller: ${name}, ${address}`,
    purpose:
      'Purpose: to contact you as a business contact about products and services that may be relevant to your organisation (business-to-business direct marketing).',
    basis: {
      consent:
        'Legal basis: your consent (Art. 6(1)(a) GDPR). You may withdraw your consent at any time, using the link below; this does not affect the lawfulness of the processing before its withdrawal.',
      legitimate_interest: 'Legal basis: our legitimate interest (Art. 6(1)(f) GDPR) in approaching businesses for which our offer is relevant.',
    },
    dataAndRecipients: 'Data: your name, job title and business contact details. Recipients: only our e-mail and IT service providers, acting on our behalf.',
    source: (s) => `Source: ${s}`,
    sources: {
      website: (company, url) => `the public website of ${company}${paren(url)}`,
      provider: (provider, domain) =>
        `${provider}, a service that collects business contact details published online${domain ? ` (searched for ${domain})` : ''}`,
      import: (d) => `a list we imported (${d})`,
      referral: (company) => `someone at ${company} who named you in a reply to our message (not a public source)`,
      publicRegister: (d) => `a public register or official publication${paren(d)}`,
      inbound: 'your message to us',
    },
    retention: (n) => `Retention: ${n === 1 ? '1 month' : `${n} months`} after our last contact, after which your data is erased.`,
    rights:
      'You have the right of access, rectification, erasure, restriction of processing and data portability, and the right to lodge a complaint with a supervisory authority.',
    moreInformation: (url) => `More information: ${url}`,
    objection: {
      legitimate_interest: (url) =>
        `Right to object: you may object at any time to the use of your data for direct marketing, and we will stop at once. Use this link: ${url}`,
      consent: (url) =>
        `Withdrawing consent and the right to object: you may withdraw your consent or object at any time to the use of your data for direct marketing, and we will stop at once. Use this link: ${url}`,
    },
  },
  de: {
    heading: 'Datenschutzhinweis (Art. 14 DSGVO)',
    controller: (name, address) => `Verantwortlicher: ${name}, ${address}`,
    purpose:
      'Zweck: Sie als geschäftlichen Ansprechpartner zu Produkten und Dienstleistungen zu kontaktieren, die für Ihr Unternehmen relevant sein können (Direktwerbung zwischen Unternehmen).',
    basis: {
      consent:
        'Rechtsgrundlage: Ihre Einwilligung (Art. 6 Abs. 1 lit. a DSGVO). Sie können Ihre Einwilligung jederzeit über den untenstehenden Link widerrufen; die Rechtmäßigkeit der bis zum Widerruf erfolgten Verarbeitung bleibt davon unberührt.',
      legitimate_interest:
        'Rechtsgrundlage: unser berechtigtes Interesse (Art. 6 Abs. 1 lit. f DSGVO), Unternehmen anzusprechen, für die unser Angebot relevant ist.',
    },
    dataAndRecipients:
      'Daten: Ihr Name, Ihre Funktion und Ihre geschäftlichen Kontaktdaten. Empfänger: nur unsere E-Mail- und IT-Dienstleister, in unserem Auftrag.',
    source: (s) => `Quelle: ${s}`,
    sources: {
      website: (company, url) => `die öffentliche Website von ${company}${paren(url)}`,
      provider: (provider, domain) =>
        `${provider}, ein Dienst, der online veröffentlichte geschäftliche Kontaktdaten sammelt${domain ? ` (gesucht nach ${domain})` : ''}`,
      import: (d) => `eine von uns importierte Liste (${d})`,
      referral: (company) => `eine Person bei ${company}, die Sie in einer Antwort auf unsere Nachricht genannt hat (keine öffentliche Quelle)`,
      publicRegister: (d) => `ein öffentliches Register oder eine amtliche Bekanntmachung${paren(d)}`,
      inbound: 'Ihre Nachricht an uns',
    },
    retention: (n) => `Speicherdauer: ${n === 1 ? '1 Monat' : `${n} Monate`} nach unserem letzten Kontakt; danach werden Ihre Daten gelöscht.`,
    rights:
      'Sie haben das Recht auf Auskunft, Berichtigung, Löschung, Einschränkung der Verarbeitung und Datenübertragbarkeit sowie das Recht auf Beschwerde bei einer Aufsichtsbehörde.',
    moreInformation: (url) => `Weitere Informationen: ${url}`,
    objection: {
      legitimate_interest: (url) =>
        `Widerspruchsrecht: Sie können der Verwendung Ihrer Daten für Direktwerbung jederzeit widersprechen; wir hören dann sofort auf. Nutzen Sie dazu diesen Link: ${url}`,
      consent: (url) =>
        `Widerruf der Einwilligung und Widerspruchsrecht: Sie können Ihre Einwilligung jederzeit widerrufen oder der Verwendung Ihrer Daten für Direktwerbung widersprechen; wir hören dann sofort auf. Nutzen Sie dazu diesen Link: ${url}`,
    },
  },
  fr: {
    heading: 'Protection des données (art. 14 RGPD)',
    controller: (name, address) => `Responsable du traitement : ${name}, ${address}`,
    purpose:
      'Finalité : vous contacter en tant que contact professionnel au sujet de produits et services susceptibles d’intéresser votre organisation (prospection commerciale entre professionnels).',
    basis: {
      consent:
        'Base légale : votre consentement (art. 6, paragraphe 1, point a), du RGPD). Vous pouvez retirer votre consentement à tout moment au moyen du lien ci-dessous ; ce retrait ne compromet pas la licéité du traitement effectué avant celui-ci.',
      legitimate_interest:
        'Base légale : notre intérêt légitime (art. 6, paragraphe 1, point f), du RGPD) à contacter les entreprises pour lesquelles notre offre est pertinente.',
    },
    dataAndRecipients:
      'Données : vos nom, fonction et coordonnées professionnelles. Destinataires : uniquement nos prestataires de messagerie et d’informatique, agissant pour notre compte.',
    source: (s) => `Source : ${s}`,
    sources: {
      website: (company, url) => `le site web public de ${company}${paren(url)}`,
      provider: (provider, domain) =>
        `${provider}, un service qui collecte les coordonnées professionnelles publiées en ligne${domain ? ` (recherche sur ${domain})` : ''}`,
      import: (d) => `une liste que nous avons importée (${d})`,
      referral: (company) => `une personne de ${company} qui a mentionné votre nom dans une réponse à notre message (pas une source publique)`,
      publicRegister: (d) => `un registre public ou une publication officielle${paren(d)}`,
      inbound: 'votre message',
    },
    retention: (n) => `Durée de conservation : ${n} mois après notre dernier contact ; vos données sont ensuite effacées.`,
    rights:
      'Vous disposez d’un droit d’accès, de rectification, d’effacement, de limitation du traitement et de portabilité de vos données, ainsi que du droit d’introduire une réclamation auprès d’une autorité de contrôle.',
    moreInformation: (url) => `Plus d’informations : ${url}`,
    objection: {
      legitimate_interest: (url) =>
        `Droit d’opposition : vous pouvez à tout moment vous opposer à l’utilisation de vos données à des fins de prospection ; nous cessons alors immédiatement. Utilisez ce lien : ${url}`,
      consent: (url) =>
        `Retrait du consentement et droit d’opposition : vous pouvez à tout moment retirer votre consentement ou vous opposer à l’utilisation de vos données à des fins de prospection ; nous cessons alors immédiatement. Utilisez ce lien : ${url}`,
    },
  },
};

/** Display names of the enrichment providers (contacts.data_source); another key is shown as it is. */
const PROVIDER_NAMES: Record<string, string> = {
  hunter: 'Hunter (hunter.io)',
  dropcontact: 'Dropcontact (dropcontact.com)',
  apollo: 'Apollo (apollo.io)',
};

/** What is recorded about a contact's origin: contacts.data_source and source_description, and its company. */
export interface RecordedSource {
  /** `manual`, `import`, `referral`, `website`, an enrichment provider's key (`hunter`), `public_register` or `signal`. */
  dataSource: string | null;
  /** The enrichment provider that found the address of a contact recorded otherwise (contacts.found_by.email), if any. */
  addressFoundBy?: string | null;
  /** contacts.source_description: typed by a person for manual and imported contacts, a record of the page or search otherwise. */
  description: string | null;
  companyName: string;
  companyDomain: string | null;
}

const clean = (s: string | null | undefined) => s?.replace(/\s+/g, ' ').trim() || null;

/**
 * The notice's source for a contact (null: someone who wrote to us without being a contact). A
 * contact recorded by hand or imported without a description, and one of an unknown origin, is
 * told as the company's public website, where business contact details are published.
 */
export function noticeSource(r: RecordedSource | null): NoticeSource {
  if (!r) return { kind: 'inbound' };
  const description = clean(r.description);
  const companyName = clean(r.companyName) ?? r.companyName;
  const website: NoticeSource = { kind: 'website', companyName, url: clean(r.companyDomain) };
  // The address the e-mail goes to came from a provider (a person entered by hand, their address found by Dropcontact): that provider is the source told.
  const addressProvider = r.addressFoundBy && r.addressFoundBy !== r.dataSource && r.addressFoundBy !== 'website' ? r.addressFoundBy : null;
  if (addressProvider) return { kind: 'provider', provider: PROVIDER_NAMES[addressProvider] ?? addressProvider, domain: clean(r.companyDomain) };
  switch (r.dataSource ?? 'manual') {
    case 'website':
      // The page's address from the record ("company website (https://bouw.nl/team)"), else the domain.
      return { ...website, url: description?.match(/https?:\/\/[^\s()<>]+/)?.[0] ?? website.url };
    case 'manual':
      return description ? { kind: 'manual', description } : { ...website, url: null };
    case 'import':
      return description ? { kind: 'import', description } : { ...website, url: null };
    case 'referral':
      return { kind: 'referral', companyName };
    case 'public_register':
    case 'signal':
      return { kind: 'public_register', description };
    default:
      return { kind: 'provider', provider: PROVIDER_NAMES[r.dataSource!] ?? r.dataSource!, domain: clean(r.companyDomain) };
  }
}

/** The source as the notice says it, in this language. */
export function sourceText(s: NoticeSource, language: NoticeLanguage): string {
  const w = NOTICE_WORDS[language].sources;
  switch (s.kind) {
    case 'website':
      return w.website(s.companyName, clean(s.url));
    case 'provider':
      return w.provider(s.provider, clean(s.domain));
    case 'import':
      return w.import(clean(s.description) ?? '');
    case 'manual':
      return clean(s.description) ?? '';
    case 'referral':
      return w.referral(s.companyName);
    case 'public_register':
      return w.publicRegister(clean(s.description));
    case 'inbound':
      return w.inbound;
  }
}

/** A line ends with one full stop: none is added after a name or text that ends in one ("B.V."). */
export function sentence(text: string): string {
  const t = text.trimEnd();
  return /[.!?…]$/.test(t) ? t : `${t}.`;
}

export interface NoticeInput {
  senderLegalName: string;
  senderAddress: string;
  privacyUrl: string;
  retentionMonths: number;
  /** Where the person's details came from (noticeSource). */
  source: NoticeSource;
  /** How the person objects (or withdraws consent): the one-click unsubscribe link. */
  unsubscribeUrl: string;
  /**
   * The contact's recorded lawful basis (default legitimate interest): consent is stated as Art. 6(1)(a)
   * with the right to withdraw it at any time, legitimate interest as Art. 6(1)(f) with the right to object.
   */
  lawfulBasis?: LawfulBasis;
}

/** The paragraphs of the notice; the objection paragraph is the last, on its own. */
export interface Notice {
  heading: string;
  paragraphs: string[];
  /** The right to object, stated separately (Art. 21(4)). */
  objection: string;
}

export function art14Notice(n: NoticeInput, language: NoticeLanguage): Notice {
  const w = NOTICE_WORDS[language];
  const basis = n.lawfulBasis ?? 'legitimate_interest';
  return {
    heading: w.heading,
    paragraphs: [
      sentence(w.controller(n.senderLegalName, n.senderAddress)),
      w.purpose,
      w.basis[basis],
      w.dataAndRecipients,
      sentence(w.source(sourceText(n.source, language))),
      w.retention(n.retentionMonths),
      w.rights,
      w.moreInformation(n.privacyUrl),
    ],
    objection: w.objection[basis](n.unsubscribeUrl),
  };
}

export function noticeText(notice: Notice): string {
  return [notice.heading, ...notice.paragraphs, '', notice.objection].join('\n');
}
