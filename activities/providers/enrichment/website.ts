import * as cheerio from 'cheerio';
import robotsParser from 'robots-parser';
import { isGenericMailbox, checkEmail, registrableDomain } from '../../../domain/companies/identity';
import { DEFAULT_USER_AGENT, fetchDocument, FetchError, FetchLimits } from '../http-fetch';
import { CompanyForEnrichment, EnrichmentProvider, EnrichmentResult, EnrichmentUnavailableError, PersonCandidate } from './types';

/**
 * Reads the company's own website: the home page and the contact, team and about pages it links
 * to (same registrable domain, at most `maxPages`). From each page: schema.org JSON-LD
 * (Organization and its employees, Person), mailto: and tel: links. robots.txt is obeyed; every
 * fetch has the time and size limits of the source fetcher.
 */
const CONTACT_LINK = /(contact|team|over-ons|overons|about|medewerkers|wie-zijn-wij|organisatie|people|ons-team|mensen)/i;
const NAME = /^[A-ZÀ-Ý][\p{L}'’-]+(?:\s+(?:van|de|der|den|het|ter|ten|von|le|la|da|di)?\s*[A-ZÀ-Ý]?[\p{L}'’-]+){1,3}$/u;

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
      this.readLinks($, url, people, found);
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
    return { people: [...people.values()], company: found, notes };
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
    const name = typeof p.name === 'string' ? p.name.trim() : [p.givenName, p.familyName].filter((x) => typeof x === 'string').join(' ').trim();
    if (!name) return;
    const emailRaw = typeof p.email === 'string' ? p.email.replace(/^mailto:/, '') : null;
    const email = emailRaw && checkEmail(emailRaw).ok && !isGenericMailbox(emailRaw.toLowerCase()) ? emailRaw.toLowerCase() : null;
    const sameAs = ([] as unknown[]).concat(p.sameAs ?? []).map(String);
    // The same person on two pages (once with an address, once without) is one candidate.
    const prevKey = [...people.entries()].find(([k, v]) => (email && k === email) || v.fullName.toLowerCase() === name.toLowerCase())?.[0];
    const prev = prevKey ? people.get(prevKey) : undefined;
    if (prevKey) people.delete(prevKey);
    const key = email ?? prev?.email ?? name.toLowerCase();
    // What was found first (the home page) wins; later pages fill gaps.
    people.set(key, {
      fullName: prev?.fullName ?? name,
      title: prev?.title ?? (typeof p.jobTitle === 'string' ? p.jobTitle : null),
      email: prev?.email ?? email,
      phone: prev?.phone ?? (typeof p.telephone === 'string' ? p.telephone : null),
      linkedinUrl: prev?.linkedinUrl ?? sameAs.find((s) => /linkedin\.com\/in\//i.test(s)) ?? null,
      source: prev?.source ?? `company website (${page})`,
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
      const name = [label, context].find((t) => NAME.test(t));
      if (name) people.set(email, { fullName: name, email, source: `company website (${page})` });
    });
    $('a[href^="tel:"]').each((_, a) => {
      company.phone ??= $(a).attr('href')!.slice(4).trim();
    });
  }
}

/** The site a host belongs to: its registrable domain, or the host itself (an IP address, localhost). */
function siteOf(hostname: string): string {
  return registrableDomain(hostname) ?? hostname;
}
