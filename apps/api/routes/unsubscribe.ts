import express, { Request, RequestHandler, Router } from 'express';
import type { ApiDeps } from '../deps';
import { bind } from '../bind';
import { operations } from './unsubscribe.schemas';
import { notFound, ProblemError, sendProblem } from '../errors';
import { unsubscribeMessage } from '../../../db/queries/unsubscribe';

/**
 * One-click unsubscribe (RFC 8058), no bearer token: the token
 * in the path names one message and only this service can make one (domain/outreach/unsubscribe-token.ts).
 * - GET shows a page with a button that POSTs; it changes nothing, so a link scanner that follows
 *   every link in a mail unsubscribes no one.
 * - POST (what a mail client sends: `List-Unsubscribe=One-Click`, form-encoded) acts at once, through
 *   app.unsubscribe_message: the address suppressed, pending messages skipped, enrollments stopped.
 *   A repeat answers 200 and changes nothing more.
 * Mounted before authentication and before the JSON-only body rule; an unknown or forged token is
 * 404 problem+json. The page names no record (its form posts to its own URL), so it shows nothing of
 * the tenant but what the mail already said.
 */
const FORM_LIMIT = '1kb';

const PAGE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  // The token is in the URL: no referrer carries it elsewhere, no search engine keeps it.
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex, nofollow',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="nl">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}</style></head>
<body>
${body}
</body>
</html>
`;
}

const CONFIRM_PAGE = page(
  'Afmelden / Unsubscribe',
  `<h1>Afmelden</h1>
<p>Wilt u geen e-mail meer van ons ontvangen? Klik op de knop; wij sturen u dan niets meer.</p>
<h2 lang="en">Unsubscribe</h2>
<p lang="en">Rather not receive our e-mail again? Press the button and we will send you nothing more.</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Afmelden / Unsubscribe</button></form>`,
);

const DONE_PAGE = page(
  'Afgemeld / Unsubscribed',
  `<h1>U bent afgemeld</h1>
<p>U ontvangt geen e-mail meer van ons.</p>
<p lang="en"><strong>You are unsubscribed.</strong> You will receive no more e-mail from us.</p>`,
);

/** A body, when there is one, is a form (RFC 8058); the API's JSON-only rule does not apply here. */
const formOnly: RequestHandler = (req, res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is('application/x-www-form-urlencoded')) {
    return sendProblem(res, 'UNSUPPORTED_MEDIA_TYPE', 'The body of an unsubscribe request is application/x-www-form-urlencoded (List-Unsubscribe=One-Click)');
  }
  next();
};

export function unsubscribeRoutes({ db, unsubscribeTokens, workflows }: ApiDeps): Router {
  const r = Router();
  const serve = bind(r, operations);

  const messageOf = (req: Request): string => {
    if (!unsubscribeTokens)
      throw new ProblemError('SERVICE_UNAVAILABLE', 'Unsubscribe links are not configured (UNSUBSCRIBE_TOKEN_KEY or INTEGRATION_SECRET_KEY)');
    const id = unsubscribeTokens.verify(String(req.params.token));
    if (!id) throw notFound('unsubscribe link');
    return id;
  };

  serve('showUnsubscribePage', (req, res) => {
    messageOf(req);
    res.set(PAGE_HEADERS).type('text/html; charset=utf-8').send(CONFIRM_PAGE);
  });

  serve(
    'unsubscribeRecipient',
    formOnly,
    express.urlencoded({ extended: false, limit: FORM_LIMIT, type: 'application/x-www-form-urlencoded' }),
    async (req, res) => {
      const messageId = messageOf(req);
      const result = await unsubscribeMessage(db, messageId);
      if (!result) throw notFound('unsubscribe link');
      req.log?.info(
        {
          messageId,
          organizationId: result.organizationId,
          suppressionCreated: result.suppressionCreated,
          skippedMessages: result.skippedMessageIds.length,
          stoppedEnrollments: result.stoppedEnrollmentIds,
        },
        'one-click unsubscribe',
      );
      // Their sequence runs end now rather than at their next timer.
      await workflows.notifyEnrollments(result.stoppedEnrollmentIds);
      res.set(PAGE_HEADERS).type('text/html; charset=utf-8').send(DONE_PAGE);
    },
  );

  return r;
}
