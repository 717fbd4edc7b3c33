import { IANAZone } from 'luxon';
import { z } from 'zod';
import { checkEmail, registrableDomain } from './identity';

/**
 * The rules for a contact's and a company's fields, as data: POST /contacts, POST /companies and every
 * row of a CSV import check the same fields with these very schemas (domain/imports/row.ts).
 */
export const name = z.string().trim().min(1, 'must not be empty').max(200);

export const countryCode = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as NL');

/** An IANA time zone, answered in its canonical spelling (mailboxes, contacts and companies). */
export const ianaTimezone = z
  .string()
  .max(100)
  .refine((v) => IANAZone.isValidZone(v), 'is not an IANA time zone (such as Europe/Amsterdam)')
  .transform((v) => new Intl.DateTimeFormat('en', { timeZone: v }).resolvedOptions().timeZone);

export const httpUrl = z
  .string()
  .url('must be a URL')
  .refine((v) => /^https?:\/\//i.test(v), 'must be an http or https URL');

export const kvk = z.string().regex(/^\d{8}$/, 'must be a KvK number of 8 digits');

export const optionalText = (max: number) => z.string().trim().min(1).max(max).optional();

export const email = z
  .string()
  .trim()
  .max(254)
  .superRefine((v, ctx) => {
    const r = checkEmail(v);
    if (!r.ok) ctx.addIssue({ code: 'custom', message: r.reason });
  });

/** A company's domain: a registrable one (not a host under it). */
export const companyDomain = z
  .string()
  .trim()
  .max(253)
  .refine((v) => registrableDomain(v) !== null, 'is not a registrable domain');

/** A person's LinkedIn profile URL. */
export const linkedinUrl = httpUrl.refine((v) => /^https:\/\/([a-z]{2,3}\.)?linkedin\.com\/in\//i.test(v), 'must be a linkedin.com/in/ profile URL');
