import { z } from 'zod';
import { companyDomain, countryCode, email, httpUrl, ianaTimezone, kvk, linkedinUrl, name, optionalText } from '../companies/fields';

/**
 * One imported row, checked field by field with the very rules of POST /contacts and POST /companies
 * (domain/companies/fields.ts; the import activity runs it, csv.ts names the columns).
 */
export const importRowSchema = z.object({
  full_name: name,
  email: email.optional(),
  title: optionalText(200),
  phone: z.string().trim().max(40).optional(),
  linkedin_url: linkedinUrl.optional(),
  company: name.optional(),
  domain: companyDomain.optional(),
  website: httpUrl.optional(),
  kvk_number: kvk.optional(),
  country: countryCode.optional(),
  timezone: ianaTimezone.optional(),
});
