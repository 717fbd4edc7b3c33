import net from 'node:net';
import { composeEmail, ComposeInput } from '../../domain/outreach/compose';
import { mailboxSetupFailure, NodemailerSmtpSender, SmtpAmbiguousError, SmtpPermanentError, SmtpTransientError } from '../../activities/providers/mail/smtp';
import { NON_RETRYABLE_SMTP_ERRORS } from '../../activities/providers/mail/types';
import { blockedMailHostReason, resolveMailHost } from '../../activities/providers/mail/connect';
import {
  allowPrivateDestinations,
  BlockedDestinationError,
  destinationPolicy,
  isPrivateAddress,
  type DestinationPolicy,
} from '../../activities/providers/destination';
import { ImapInboxReader } from '../../activities/providers/mail/imap';
import { composeInput } from '../helpers/compose-input';
import { startSmtpServer, TestSmtpServer } from '../helpers/smtp-server';

/**
 * Sending over SMTP against a real SMTP server on 127.0.0.1 (smtp-server): the message arrives with
 * the composed headers exactly; a refusal, a deferral and a connection lost after the message are
 * three different failures (permanent, transient, ambiguous).
 */
let server: TestSmtpServer;
const sender = new NodemailerSmtpSender({ connectionMs: 2000, greetingMs: 1000, socketMs: 1000 });
beforeAll(async () => {
  server = await startSmtpServer();
});
afterAll(() => server?.close());

const smtp = () => ({ host: server.host, port: server.port, secure: false });
const MESSAGE_ID = '0b6c9a1e-2f3d-4e5f-8a9b-112233445566';

function mail(to: string, over: Partial<ComposeInput> = {}) {
  return composeEmail(
    composeInput({
      messageId: MESSAGE_ID,
      subject: 'Warmtepompen voor uw 48 woningen — Dorpsstraat',
      body: 'Beste Jan,\n\nIk las over uw 48 woningen aan de Dorpsstraat.\n\nMet vriendelijke groet,\nAnna',
      from: { address: 'anna@acme-installaties.nl', displayName: 'Anna de Vries · Acme' },
      to: { address: to, name: 'Jan Jansen' },
      source: { kind: 'website', companyName: 'Bouw B.V.', url: 'bouw.nl' },
      unsubscribeUrl: 'https://outreach.example.nl/u/AbC_-123',
      ...over,
    }),
  );
}

test('a message arrives with the exact headers, the body, the notice and the footer', async () => {
  const composed = mail('jan@bouw.nl');
  const result = await sender.send(composed, smtp());
  expect(result).toEqual({ accepted: ['jan@bouw.nl'], response: expect.stringMatching(/^250 .*queued as/), messageId: `<${MESSAGE_ID}@acme-installaties.nl>` });

  const [received, ...more] = await server.received('jan@bouw.nl');
  expect(more).toEqual([]);
  const line = (key: string) => received!.headerLines.filter((h) => h.key === key).map((h) => h.line);
  expect(line('list-unsubscribe')).toEqual([
    'List-Unsubscribe: <https://outreach.example.nl/u/AbC_-123>, <mailto:afmelden@acme-installaties.nl?subject=afmelden>',
  ]);
  expect(line('list-unsubscribe-post')).toEqual(['List-Unsubscribe-Post: List-Unsubscribe=One-Click']);
  expect(line('message-id')).toEqual([`Message-ID: <${MESSAGE_ID}@acme-installaties.nl>`]);
  expect(line('date')).toHaveLength(1);
  expect(received!.messageId).toBe(`<${MESSAGE_ID}@acme-installaties.nl>`);
  expect(received!.subject).toBe('Warmtepompen voor uw 48 woningen — Dorpsstraat'); // encoded on the wire, decoded here
  expect(received!.from!.value).toEqual([{ address: 'anna@acme-installaties.nl', name: 'Anna de Vries · Acme' }]);
  expect(received!.to!.value).toEqual([{ address: 'jan@bouw.nl', name: 'Jan Jansen' }]);
  expect(received!.text).toBe(composed.text);
  expect(received!.text).toContain('Privacy (art. 14 AVG)');
  expect(received!.text).toContain('\n\nRecht van bezwaar: ');
  expect(received!.text).toContain('Dit bericht is opgesteld met behulp van AI.');
  expect(server.messages.at(-1)!.from).toBe('anna@acme-installaties.nl');
});

test('550 on the recipient: permanent, a hard bounce; the server text kept on the error, not in its message; nothing stored', async () => {
  server.refuse('gone@bouw.nl', 550, '5.1.1 <gone@bouw.nl>: Recipient address rejected: User unknown');
  const before = server.messages.length;
  const err = await sender.send(mail('gone@bouw.nl'), smtp()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SmtpPermanentError);
  expect(err).toMatchObject({ name: 'SmtpPermanentError', kind: 'permanent', hardBounce: true, responseCode: 550, command: 'RCPT TO' });
  expect((err as SmtpPermanentError).response).toContain('Recipient address rejected: User unknown');
  // The message (messages.error, shown to the tenant) carries the command, the code and the enhanced code only.
  expect((err as Error).message).toBe('SMTP RCPT TO refused: 550 5.1.1');
  expect(server.messages.length).toBe(before);
});

test('hard only when the address is bad: 550 5.1.1 at the end of DATA is a hard bounce, a 550 5.7.1 policy block at RCPT TO is not', async () => {
  server.refuseAfterData('late@bouw.nl', 550, '5.1.1 <late@bouw.nl>: user unknown');
  const late = await sender.send(mail('late@bouw.nl'), smtp()).catch((e: unknown) => e);
  expect(late).toMatchObject({ name: 'SmtpPermanentError', hardBounce: true, responseCode: 550, command: 'DATA' });
  server.refuse('blocked@bouw.nl', 550, '5.7.1 Service unavailable; client host blocked using a block list');
  const blocked = await sender.send(mail('blocked@bouw.nl'), smtp()).catch((e: unknown) => e);
  expect(blocked).toMatchObject({ name: 'SmtpPermanentError', hardBounce: false, reason: 'blocked', responseCode: 550, command: 'RCPT TO' });
  server.refuseAfterData('filtered@bouw.nl', 554, '5.7.1 Message rejected as spam');
  expect(await sender.send(mail('filtered@bouw.nl'), smtp()).catch((e: unknown) => e)).toMatchObject({ hardBounce: false, command: 'DATA' });
});

test('451 on the recipient: transient (retry)', async () => {
  server.refuse('busy@bouw.nl', 451, '4.7.1 Greylisted, try again later');
  const err = await sender.send(mail('busy@bouw.nl'), smtp()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SmtpTransientError);
  expect(err).toMatchObject({ name: 'SmtpTransientError', kind: 'transient', responseCode: 451 });
  expect((err as Error).message).toBe('SMTP RCPT TO deferred: 451 4.7.1');
  expect((err as SmtpTransientError).response).toContain('Greylisted');
});

test('the connection dropped after the whole message was sent: ambiguous, never retried', async () => {
  server.dropAfterData('dropped@bouw.nl');
  const err = await sender.send(mail('dropped@bouw.nl'), smtp()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SmtpAmbiguousError);
  expect(err).toMatchObject({ name: 'SmtpAmbiguousError', kind: 'ambiguous' });
  expect(NON_RETRYABLE_SMTP_ERRORS).toEqual(expect.arrayContaining([(err as Error).name, 'SmtpPermanentError']));
  expect(NON_RETRYABLE_SMTP_ERRORS).not.toContain('SmtpTransientError');
});

test('no reply to the message before the socket timeout: ambiguous', async () => {
  server.hangAfterData('silent@bouw.nl');
  const err = await sender.send(mail('silent@bouw.nl'), smtp()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SmtpAmbiguousError);
  expect(err).toMatchObject({ code: 'ETIMEDOUT' });
});

test('connection refused, or a server that never greets: transient (nothing was sent)', async () => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const refused = await sender.send(mail('jan@bouw.nl'), { host: '127.0.0.1', port, secure: false }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(SmtpTransientError);

  const mute = net.createServer(() => undefined);
  await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
  try {
    const silent = await sender
      .send(mail('jan@bouw.nl'), { host: '127.0.0.1', port: (mute.address() as net.AddressInfo).port, secure: false })
      .catch((e: unknown) => e);
    expect(silent).toBeInstanceOf(SmtpTransientError);
    expect(silent).toMatchObject({ code: 'ETIMEDOUT' });
  } finally {
    mute.close();
  }
});

describe('authentication', () => {
  let authed: TestSmtpServer;
  beforeAll(async () => {
    authed = await startSmtpServer({ auth: { username: 'anna', password: 's3cret' } });
  });
  afterAll(() => authed?.close());

  test('the right password sends; a wrong one is permanent (535), not a bounce', async () => {
    const settings = { host: authed.host, port: authed.port, secure: false, username: 'anna', requireTls: false };
    await sender.send(mail('piet@bouw.nl'), { ...settings, password: 's3cret' });
    expect(await authed.received('piet@bouw.nl')).toHaveLength(1);
    const err = await sender.send(mail('piet@bouw.nl'), { ...settings, password: 'wrong' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SmtpPermanentError);
    expect(err).toMatchObject({ responseCode: 535, hardBounce: false });
    // A mailbox fault, not the recipient's: the send activity holds the mailbox with this reason.
    expect(mailboxSetupFailure(err)).toMatch(/refused the mailbox’s login \(535\)/);
  });

  test('a password is never sent unencrypted unless allowed: a server without STARTTLS is refused', async () => {
    const err = await sender
      .send(mail('piet@bouw.nl'), { host: authed.host, port: authed.port, secure: false, username: 'anna', password: 's3cret' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((await authed.received('piet@bouw.nl')).length).toBe(1);
  });
});

describe('tenant-chosen SMTP hosts pass the outbound policy (activities/providers/mail/connect.ts)', () => {
  const denyPrivate: DestinationPolicy = {
    allowPrivate: false,
    isPrivate: isPrivateAddress,
    resolve: async (h) => (h === 'smtp.intern.example' ? [{ address: '10.1.2.3', family: 4 }] : [{ address: '203.0.113.7', family: 4 }]),
  };
  const strict = new NodemailerSmtpSender({ connectionMs: 2000, greetingMs: 1000, socketMs: 1000 }, undefined, () => denyPrivate);

  test('loopback, a private address, or a name resolving to one: refused before any connection, with a generic reason', async () => {
    const before = server.messages.length;
    for (const host of ['127.0.0.1', '10.0.0.5', '169.254.169.254', 'smtp.intern.example']) {
      const err = await strict.send(mail('jan@bouw.nl'), { host, port: 587, secure: false }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BlockedDestinationError);
      expect(mailboxSetupFailure(err)).toBe(blockedMailHostReason('smtp'));
    }
    // The same server that accepts mail when private networks are allowed receives nothing.
    const err = await strict.send(mail('jan@bouw.nl'), smtp()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlockedDestinationError);
    expect(server.messages.length).toBe(before);
  });

  test('ports other than 25, 465, 587 and 2525 are refused (IMAP: 143, 993)', async () => {
    const err = await strict.send(mail('jan@bouw.nl'), { host: 'smtp.public.example', port: 6379, secure: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlockedDestinationError);
    await expect(resolveMailHost('smtp', 'smtp.public.example', 587, denyPrivate)).resolves.toEqual({
      address: '203.0.113.7',
      servername: 'smtp.public.example',
    });
    await expect(resolveMailHost('imap', 'smtp.public.example', 993, denyPrivate)).resolves.toMatchObject({ address: '203.0.113.7' });
    await expect(resolveMailHost('imap', 'smtp.public.example', 22, denyPrivate)).rejects.toBeInstanceOf(BlockedDestinationError);
    // Allowed private networks (development, the tests) allow any port.
    await expect(resolveMailHost('smtp', '127.0.0.1', 6379, { ...denyPrivate, allowPrivate: true })).resolves.toEqual({
      address: '127.0.0.1',
      servername: undefined,
    });
  });

  test('a service that is no SMTP server: its banner never reaches the error message', async () => {
    const fake = net.createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6 internal-db-01\r\n'));
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    try {
      const err = await sender
        .send(mail('jan@bouw.nl'), { host: '127.0.0.1', port: (fake.address() as net.AddressInfo).port, secure: false })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).not.toContain('SSH');
      expect((err as Error).message).not.toContain('internal-db');
    } finally {
      fake.close();
    }
  });
});

test('an IMAP host on 127.0.0.1 or 10.x is refused when private networks are not allowed (the setting flipped for one call)', async () => {
  const was = destinationPolicy().allowPrivate;
  allowPrivateDestinations(false);
  try {
    for (const host of ['127.0.0.1', '10.0.0.8']) {
      await expect(
        new ImapInboxReader().readSince({ host, port: 993, secure: true, username: 'x', password: 'y' }, { uidValidity: null, lastUid: 0 }, 10),
      ).rejects.toThrow(blockedMailHostReason('imap'));
    }
  } finally {
    allowPrivateDestinations(was);
  }
});
