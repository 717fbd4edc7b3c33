import * as cheerio from 'cheerio';
import type { AnyNode } from 'domhandler';
import robotsParser from 'robots-parser';
import { siteDomain } from '../../../domain/companies/domains';
import { isGenericMailbox, checkEmail } from '../../../domain/companies/identity';
import { addressesIn, looksLikePersonName, mergePerson, PageLine, peopleFromLines } from '../../../domain/companies/people';
import { DEFAULT_USER_AGENT, fetchDocument, FetchError, FetchLimits } from '../http-fetch';
import { CompanyForEnrichment, EnrichmentProvider, EnrichmentResult, EnrichmentUnavailableError, PersonCandidate } from './types';

/**
 * Reads the company's own website: the home page and the contact, team and about pages it links
 * to (same registrable domain, at most `maxPages`). From each page: schema.org JSON-LD
 * (Organization and its employees, Person), people named in the text with their role and address
 * (contact lines, team lists, cards), mailto: and tel: links; every address the site publishes is
 * kept, so a company without a domain of its own can take it from them. robots.txt is obeyed;
 * every fetch has the time and size limits of the source fetcher.
 */
const CONTACT_LINK = /(contact|team|over-ons|overons|about|medewerkers|wie-zijn-wij|organisatie|people|ons-team|mensen)/i;

type JsonLd = Record<string, unknown>;

export class WebsiteEnrichmentProvider implements EnrichmentProvider {
  readonly key = 'website';

  constructor(
    private readonly limits: FetchLimits,
    private readonly maxPages = 5,
  ) {}

  async findPeople(company: CompanyForEnrichment): Promise<EnrichmentResult> {
    const home = company.website ?? (company.domain ? `https://${company.domain}/` : null);
    if (!home) return { people: [], company: {}, notes: ['website: the company has no website'] };
    const site = siteOf(new URL(home).hostname);
    const robots = await this.robotsFor(home);
    const queue = [new URL(home).toString()];
    const seen = new Set<string>();
    const people = new Map<string, PersonCandidate>();
    const found: EnrichmentResult['company'] = {};
    const published = new Set<string>();
    const notes: string[] = [];

    while (queue.length && seen.size < this.maxPages) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      if (!robots.isAllowed(url, DEFAULT_USER_AGENT)) {
        notes.push(`website: ${url} disallowed by robots.txt`);
        continue;
      }
      let html: string;
      try {
        const res = await fetchDocument(url, this.limits, {}, 'text/html');
        if (res.status !== 'ok') continue;
        html = res.body;
      } catch (err) {
        if (seen.size === 1) throw new EnrichmentUnavailableError((err as Error).message, err instanceof FetchError && err.retryable);
        notes.push(`website: ${(err as Error).message}`);
        continue;
      }
      const $ = cheerio.load(html);
      this.readJsonLd($, url, people, found);
      const lines = pageLines($);
      for (const p of peopleFromLines(lines)) mergePerson(people, { ...p, source: `company website (${url})` });
      this.readLinks($, url, people, found);
      for (const email of addressesIn(lines)) published.add(email);
      if (seen.size === 1) {
        $('a[href]').each((_, a) => {
          const href = $(a).attr('href')!;
          const label = `${href} ${$(a).text()}`;
          if (!CONTACT_LINK.test(label)) return;
          try {
            const next = new URL(href, url);
            next.hash = '';
            if (/^https?:$/.test(next.protocol) && siteOf(next.hostname) === site && !queue.includes(next.toString())) queue.push(next.toString());
          } catch {
            // not a URL
          }
        });
      }
    }
    notes.push(`website: read ${seen.size} page(s), found ${people.size} people`);
    return { people: [...people.values()], company: { ...found, publishedAddresses: [...published] }, notes };
  }

  /**
   * RFC 9309: no robots.txt (4xx) allows everything; a server error (5xx) allows nothing. A site
   * that cannot be reached at all fails this provider, so the waterfall moves on.
   */
  private async robotsFor(home: string) {
    const url = new URL('/robots.txt', home).toString();
    try {
      const res = await fetchDocument(url, this.limits, {}, 'text/plain');
      return robotsParser(url, res.status === 'ok' ? res.body : '');
    } catch (err) {
      if (!(err instanceof FetchError)) throw err;
      if (/HTTP 4\d\d/.test(err.message)) return robotsParser(url, '');
      if (/HTTP 5\d\d/.test(err.message)) return robotsParser(url, 'User-agent: *\nDisallow: /');
      throw new EnrichmentUnavailableError(err.message, err.retryable);
    }
  }

  private readJsonLd($: cheerio.CheerioAPI, page: string, people: Map<string, PersonCandidate>, company: EnrichmentResult['company']) {
    const nodes: JsonLd[] = [];
    $('script[type="application/ld+json"]').each((_, el) => {
      try {
        const parsed = JSON.parse($(el).text());
        const push = (n: unknown) => {
          if (Array.isArray(n)) n.forEach(push);
          else if (n && typeof n === 'object') {
            nodes.push(n as JsonLd);
            if ((n as JsonLd)['@graph']) push((n as JsonLd)['@graph']);
          }
        };
        push(parsed);
      } catch {
        // a broken block is skipped, the page is still read
      }
    });
    const types = (n: JsonLd) => ([] as unknown[]).concat(n['@type'] ?? []).map(String);
    for (const n of nodes) {
      if (types(n).some((t) => /Organization|LocalBusiness|Corporation/.test(t))) {
        const email = typeof n.email === 'string' ? n.email.replace(/^mailto:/, '') : null;
        if (email && checkEmail(email).ok) company.genericEmail ??= email.toLowerCase();
        if (typeof n.telephone === 'string') company.phone ??= n.telephone;
        if (n.address && typeof n.address === 'object') {
          const a = n.address as JsonLd;
          company.address ??= [a.streetAddress, a.postalCode, a.addressLocality].filter(Boolean).join(', ') || null;
        }
        for (const key of ['employee', 'employees', 'member', 'founder', 'contactPoint']) {
          for (const p of ([] as unknown[]).concat(n[key] ?? [])) if (p && typeof p === 'object') this.addPerson(p as JsonLd, page, people);
        }
      }
      if (types(n).includes('Person')) this.addPerson(n, page, people);
    }
  }

  private addPerson(p: JsonLd, page: string, people: Map<string, PersonCandidate>) {
    const name =
      typeof p.name === 'string'
        ? p.name.trim()
        : [p.givenName, p.familyName]
            .filter((x) => typeof x === 'string')
            .join(' ')
            .trim();
    if (!name) return;
    const emailRaw = typeof p.email === 'string' ? p.email.replace(/^mailto:/, '') : null;
    const email = emailRaw && checkEmail(emailRaw).ok && !isGenericMailbox(emailRaw.toLowerCase()) ? emailRaw.toLowerCase() : null;
    const sameAs = ([] as unknown[]).concat(p.sameAs ?? []).map(String);
    mergePerson(people, {
      fullName: name,
      title: typeof p.jobTitle === 'string' ? p.jobTitle : null,
      email,
      phone: typeof p.telephone === 'string' ? p.telephone : null,
      linkedinUrl: sameAs.find((s) => /linkedin\.com\/in\//i.test(s)) ?? null,
      source: `company website (${page})`,
    });
  }

  private readLinks($: cheerio.CheerioAPI, page: string, people: Map<string, PersonCandidate>, company: EnrichmentResult['company']) {
    $('a[href^="mailto:"]').each((_, a) => {
      const email = decodeURIComponent($(a).attr('href')!.slice(7).split('?')[0]!).trim().toLowerCase();
      if (!checkEmail(email).ok) return;
      if (isGenericMailbox(email)) {
        company.genericEmail ??= email;
        return;
      }
      if ([...people.values()].some((p) => p.email === email)) return;
      // A personal address counts as a person only when the page names them.
      const label = $(a).text().trim();
      const context = $(a).closest('li, p, div, article, section').find('h1, h2, h3, h4, strong, b, .name').first().text().trim();
      const name = [label, context].find((t) => looksLikePersonName(t));
      if (name) mergePerson(people, { fullName: name, email, source: `company website (${page})` });
    });
    $('a[href^="tel:"]').each((_, a) => {
      company.phone ??= $(a).attr('href')!.slice(4).trim();
    });
  }
}

/** The site a host belongs to: its registrable domain (a hosting subdomain is its own), or the host itself (an IP address, localhost). */
function siteOf(hostname: string): string {
  return siteDomain(hostname) ?? hostname;
}

// Elements that start a new line of text; of those, the ones that hold a block of lines (a card, a row).
const LINE_TAGS = new Set([
  'p',
  'div',
  'li',
  'tr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'dt',
  'dd',
  'dl',
  'ul',
  'ol',
  'table',
  'tbody',
  'thead',
  'address',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'aside',
  'nav',
  'blockquote',
  'figure',
  'figcaption',
  'form',
  'fieldset',
  'hr',
  'body',
]);
const GROUP_TAGS = new Set(['div', 'li', 'tr', 'dl', 'address', 'section', 'article', 'header', 'footer', 'main', 'aside', 'blockquote', 'figure', 'body']);
const SKIP_TAGS = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'select', 'button']);

/**
 * A page's visible text as lines (a new line at every block element and <br>; table cells joined
 * by " | "), each with the addresses of its mailto:/tel: links and the block it belongs to.
 */
export function pageLines($: cheerio.CheerioAPI): PageLine[] {
  const lines: PageLine[] = [];
  const groupIds = new Map<AnyNode, number>();
  let current: PageLine = { text: '' };
  const flush = () => {
    current.text = current.text.replace(/\s+/g, ' ').trim();
    if (current.text || current.emails?.length || current.phones?.length) lines.push(current);
    current = { text: '', group: current.group };
  };
  const walk = (node: AnyNode, group: number) => {
    if (node.type === 'text') {
      if (current.group !== group) {
        if (current.text.trim()) flush();
        current.group = group;
      }
      current.text += (node as unknown as { data: string }).data;
      return;
    }
    if (node.type !== 'tag') return;
    const el = node as unknown as { name: string; attribs: Record<string, string>; children: AnyNode[] };
    if (SKIP_TAGS.has(el.name)) return;
    if (el.name === 'br') return void flush();
    if (el.name === 'td' || el.name === 'th') current.text += ' | ';
    const isLine = LINE_TAGS.has(el.name);
    if (isLine) flush();
    let inner = group;
    if (GROUP_TAGS.has(el.name)) {
      if (!groupIds.has(node)) groupIds.set(node, groupIds.size + 1);
      inner = groupIds.get(node)!;
      current.group = inner;
    }
    const href = el.name === 'a' ? (el.attribs.href ?? '') : '';
    if (/^mailto:/i.test(href)) {
      try {
        (current.emails ??= []).push(decodeURIComponent(href.slice(7).split('?')[0]!).trim().toLowerCase());
      } catch {
        // an undecodable address is not one
      }
    } else if (/^tel:/i.test(href)) (current.phones ??= []).push(href.slice(4).trim());
    for (const child of el.children) walk(child, inner);
    if (isLine) flush();
    if (GROUP_TAGS.has(el.name)) current.group = group;
  };
  const root = $('body').get(0) ?? $.root().get(0);
  if (root) walk(root as AnyNode, 0);
  flush();
  return lines;
}
