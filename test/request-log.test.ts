import type { IncomingMessage } from 'node:http';
import { requestSummary } from '../apps/api/app';

const summary = (originalUrl: string) =>
  requestSummary({ id: 'r-1', method: 'GET', originalUrl, headers: { authorization: 'Bearer secret' }, socket: { remoteAddress: '192.0.2.7' } } as unknown as IncomingMessage & { originalUrl: string });

test("a request's log binding names it without its headers, and masks the credentials a URL may carry", () => {
  expect(summary('/signals?organizationId=o-1&q=code')).toEqual({ id: 'r-1', method: 'GET', url: '/signals?organizationId=o-1&q=code', remoteAddress: '192.0.2.7' });
  expect(summary('/u/eyJhbGciOi.abc-def_ghi').url).toBe('/u/[redacted]');
  expect(summary('/u/tok.en?source=list').url).toBe('/u/[redacted]?source=list');
  expect(summary('/mailboxes/oauth/callback?code=4/0AbC&state=s-123&scope=mail').url).toBe('/mailboxes/oauth/callback?code=[redacted]&state=[redacted]&scope=mail');
  expect(summary('/mailboxes/oauth/callback?error=access_denied&state=s-9').url).toBe('/mailboxes/oauth/callback?error=access_denied&state=[redacted]');
  expect(JSON.stringify(summary('/signals'))).not.toContain('secret');
});
