import { parseInbound } from '../../activities/providers/mail/parse';
import { SENDER_REFUSED } from '../../domain/replies/bounce-reasons';
import { reasonOf, decideReport } from '../../domain/replies/delivery-report';
import { decideInbound } from '../../domain/replies/inbound-decision';
import { isTrustedFeedbackLoop } from '../../domain/replies/feedback-loops';
import { cleanRecipient } from '../../domain/replies/recipient';

/**
 * Delivery reports in the shapes real servers send them, written here for the test (the real-mail
 * corpus beside the repository is evaluation data only): plain-text notices, RFC 3464 reports, null
 * senders, feedback loops, provider JSON, DMARC and read receipts.
 */
const ORIGINAL_ID = '<0f3a9c1e-77aa-4b1e-9d0e-1f2e3d4c5b6a@mail.example-sender.nl>';

function msg(headers: Record<string, string>, body: string): Buffer {
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  return Buffer.from(`${head}\r\n\r\n${body.replace(/\r?\n/g, '\r\n')}`);
}

async function decide(raw: Buffer) {
  const p = await parseInbound(raw);
  return decideInbound(p, { sentAt: new Date('2026-11-02T10:00:00Z'), senderZone: 'Europe/Amsterdam' });
}

const original = `Return-Path: <anna@example-sender.nl>
Message-ID: ${ORIGINAL_ID}
From: Anna <anna@example-sender.nl>
To: piet@bouwbedrijf.example
Subject: Uitbreiding bedrijfshal

Beste Piet, ...`;

describe('plain-text bounce notices', () => {
  test('qmail: the address and the server words after "remote host said", from a MAILER-DAEMON with no To name', async () => {
    const raw = msg(
      {
        'Return-Path': '<>',
        From: 'MAILER-DAEMON@mx.relay.example',
        To: 'anna@example-sender.nl',
        Subject: 'failure notice',
        Date: 'Mon, 2 Nov 2026 10:00:00 +0100',
      },
      `Hi. This is the qmail-send program at mx.relay.example.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<piet@bouwbedrijf.example>:
192.0.2.10 does not like recipient.
Remote host said: 550 5.1.1 <piet@bouwbedrijf.example>: Recipient address rejected: User unknown
Giving up on 192.0.2.10.

--- Below this line is a copy of the message.

${original}`,
    );
    const d = await decide(raw);
    expect(d.kind).toBe('hard_bounce');
    expect(d.report).toMatchObject({
      reason: 'user_unknown',
      status: '5.1.1',
      recipient: 'piet@bouwbedrijf.example',
      originalMessageId: ORIGINAL_ID.toLowerCase(),
    });
  });

  test('Exim: X-Failed-Recipients and a full mailbox is soft, not hard', async () => {
    const raw = msg(
      {
        From: 'Mail Delivery System <Mailer-Daemon@mx.relay.example>',
        To: 'anna@example-sender.nl',
        Subject: 'Mail delivery failed: returning message to sender',
        'X-Failed-Recipients': 'piet@bouwbedrijf.example',
        'Auto-Submitted': 'auto-replied',
      },
      `This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  piet@bouwbedrijf.example
    host mx.bouwbedrijf.example [192.0.2.20]
    SMTP error from remote mail server after RCPT TO:<piet@bouwbedrijf.example>:
    552 5.2.2 Mailbox full: quota exceeded

------ This is a copy of the message, including all the headers. ------

${original}`,
    );
    const d = await decide(raw);
    expect(d.kind).toBe('soft_bounce');
    expect(d.report).toMatchObject({ reason: 'mailbox_full', recipient: 'piet@bouwbedrijf.example' });
  });

  test('a null sender ("MAILER-DAEMON <>", no address at all) is read, never refused', async () => {
    const raw = msg(
      { From: 'MAILER-DAEMON <>', To: 'anna@example-sender.nl', Subject: 'Returned mail: see transcript for details' },
      `The original message was received at Mon, 2 Nov 2026 10:00:00 +0100
   ----- The following addresses had permanent fatal errors -----
<piet@nergens.example>
    (reason: 550 Host unknown)

   ----- Transcript of session follows -----
550 5.1.2 <piet@nergens.example>... Host unknown (Name server: nergens.example: host not found)
`,
    );
    const d = await decide(raw);
    expect(d.kind).toBe('hard_bounce');
    expect(d.report).toMatchObject({ reason: 'host_unknown', recipient: 'piet@nergens.example' });
  });

  test('a policy block (550 5.7.1) names the sender, not the address: soft, blocked-kind reason', async () => {
    const raw = msg(
      { From: 'postmaster@mx.bouwbedrijf.example', To: 'anna@example-sender.nl', Subject: 'Undeliverable: Uitbreiding bedrijfshal' },
      `Delivery has failed to these recipients or groups:

piet@bouwbedrijf.example
Your message wasn't delivered because the recipient's email provider rejected it.

Diagnostic information for administrators:
Remote server returned '550 5.7.1 Service unavailable; Client host [192.0.2.99] blocked using Spamhaus'
`,
    );
    const d = await decide(raw);
    expect(d.kind).toBe('soft_bounce');
    expect(['blocked', 'spam', 'policy']).toContain(d.report!.reason);
  });

  test('a delay warning is a soft bounce that fails nothing yet', async () => {
    const raw = msg(
      { From: 'Mail Delivery Subsystem <mailer-daemon@googlemail.com>', To: 'anna@example-sender.nl', Subject: 'Delivery Status Notification (Delay)' },
      `This is an automatically generated Delivery Status Notification

THIS IS A WARNING MESSAGE ONLY.

YOU DO NOT NEED TO RESEND YOUR MESSAGE.

Delivery to the following recipient has been delayed:

     piet@bouwbedrijf.example

Message will be retried for 2 more day(s)

Technical details of temporary failure:
The recipient server did not accept our requests to connect. [mx.bouwbedrijf.example 192.0.2.20: timed out]
`,
    );
    const d = await decide(raw);
    expect(d.kind).toBe('soft_bounce');
    expect(d.report!.delayed).toBe(true);
  });
});

describe('RFC 3464 reports', () => {
  function dsn(perRecipient: string) {
    return msg(
      {
        From: 'MAILER-DAEMON@mx.relay.example (Mail Delivery System)',
        To: 'anna@example-sender.nl',
        Subject: 'Undelivered Mail Returned to Sender',
        'MIME-Version': '1.0',
        'Content-Type': 'multipart/report; report-type=delivery-status; boundary="b1"',
      },
      `--b1
Content-Type: text/plain

This is the mail system at host mx.relay.example. I'm sorry to have to inform you that your message could not be delivered.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.relay.example

${perRecipient}

--b1
Content-Type: text/rfc822-headers

Message-ID: ${ORIGINAL_ID}
From: anna@example-sender.nl

--b1--
`,
    );
  }

  test('several recipients: one unknown makes the report hard, the recipient cleaned of its type', async () => {
    const d = decideReport(
      await parseInbound(
        dsn(`Final-Recipient: rfc822; <Kees@Bouwbedrijf.example>
Action: failed
Status: 5.2.2
Diagnostic-Code: smtp; 552 5.2.2 Mailbox full

Final-Recipient: rfc822; piet@bouwbedrijf.example
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 User unknown`),
      ),
    );
    expect(d).toMatchObject({
      kind: 'hard_bounce',
      reason: 'user_unknown',
      recipient: 'piet@bouwbedrijf.example',
      originalMessageId: ORIGINAL_ID.toLowerCase(),
    });
  });

  test("a reporting server's generic Status 5.0.0 gives way to the receiving server's own 5.1.0 in its diagnostic", async () => {
    const d = decideReport(
      await parseInbound(
        dsn('Final-Recipient: rfc822; piet@bouwbedrijf.example\nAction: failed\nStatus: 5.0.0\nDiagnostic-Code: smtp; 550 #5.1.0 Address rejected.'),
      ),
    );
    expect(d).toMatchObject({ kind: 'hard_bounce', reason: 'user_unknown', status: '5.1.0' });
  });

  test("a relay's own label before the remote answer is not the remote's status: a 550 5.7.1 relayed as '5.1.0 - Unknown address error' stays a policy refusal", async () => {
    const d = decideReport(
      await parseInbound(
        dsn(`Final-Recipient: rfc822; piet@bouwbedrijf.example
Action: failed
Status: 5.0.0 (permanent failure)
Diagnostic-Code: smtp; 5.1.0 - Unknown address error 550-'5.7.1 <bounce-1@relay.example>... Relaying denied by policy' (delivery attempts: 0)`),
      ),
    );
    expect(d).toMatchObject({ kind: 'soft_bounce', status: '5.7.1' });
  });

  test('a DMARC rejection is soft (auth_failure), a delivered report asks for nothing', async () => {
    expect(
      decideReport(
        await parseInbound(
          dsn(
            "Final-Recipient: rfc822; piet@bouwbedrijf.example\nAction: failed\nStatus: 5.7.26\nDiagnostic-Code: smtp; 550 5.7.26 Unauthenticated email from example-sender.nl is not accepted due to domain's DMARC policy",
          ),
        ),
      ),
    ).toMatchObject({
      kind: 'soft_bounce',
      reason: 'auth_failure',
    });
    expect(decideReport(await parseInbound(dsn('Final-Recipient: rfc822; piet@bouwbedrijf.example\nAction: delivered\nStatus: 2.0.0')))).toMatchObject({
      kind: 'report',
      reason: 'delivered',
    });
  });
});

describe('feedback loops and reports', () => {
  const arf = (feedbackType: string) =>
    msg(
      {
        From: 'feedback@arf.mail.yahoo.com',
        To: 'fbl@example-sender.nl',
        Subject: 'FW: Uitbreiding bedrijfshal',
        'MIME-Version': '1.0',
        'Content-Type': 'multipart/report; report-type=feedback-report; boundary="f1"',
      },
      `--f1
Content-Type: text/plain

This is an email abuse report for an email message received from IP 192.0.2.44.

--f1
Content-Type: message/feedback-report

Feedback-Type: ${feedbackType}
User-Agent: Yahoo!-Mail-Feedback/2.0
Version: 1
Original-Rcpt-To: piet@bouwbedrijf.example

--f1
Content-Type: message/rfc822

${original}
--f1--
`,
    );

  test('ARF abuse is a complaint naming the original; an auth-failure report is a report', async () => {
    expect((await decide(arf('abuse'))).report).toMatchObject({
      kind: 'complaint',
      reason: 'abuse',
      recipient: 'piet@bouwbedrijf.example',
      originalMessageId: ORIGINAL_ID.toLowerCase(),
      reporter: 'feedback@arf.mail.yahoo.com',
      structured: true,
    });
    expect((await decide(arf('auth-failure'))).kind).toBe('report');
  });

  test('Microsoft JMRP (the original as an attachment carrying X-HmXmrOriginalRecipient) is a complaint', async () => {
    const raw = msg(
      {
        From: 'staff@hotmail.com',
        To: 'fbl@example-sender.nl',
        Subject: 'complaint about message from 192.0.2.44',
        'MIME-Version': '1.0',
        'Content-Type': 'multipart/mixed; boundary="j1"',
      },
      `--j1
Content-Type: text/plain

This is an email abuse report for an email message received from IP 192.0.2.44 on Mon, 2 Nov 2026.

--j1
Content-Type: message/rfc822
Content-Disposition: attachment

X-HmXmrOriginalRecipient: <piet@outlook.example>
${original}
--j1--
`,
    );
    expect((await decide(raw)).report).toMatchObject({ kind: 'complaint', originalMessageId: ORIGINAL_ID.toLowerCase() });
  });

  test('an Amazon SES notice in JSON: a permanent bounce with 5.1.1 is hard, a complaint a complaint', async () => {
    const bounce = msg(
      { From: 'no-reply@sns.amazonaws.com', To: 'anna@example-sender.nl', Subject: 'AWS Notification Message' },
      JSON.stringify({
        notificationType: 'Bounce',
        bounce: {
          bounceType: 'Permanent',
          bouncedRecipients: [{ emailAddress: 'piet@bouwbedrijf.example', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
        },
        mail: { messageId: 'x' },
      }),
    );
    expect((await decide(bounce)).report).toMatchObject({ kind: 'hard_bounce', recipient: 'piet@bouwbedrijf.example' });
    const complaint = msg(
      { From: 'no-reply@sns.amazonaws.com', To: 'anna@example-sender.nl', Subject: 'AWS Notification Message' },
      JSON.stringify({
        notificationType: 'Complaint',
        complaint: { complainedRecipients: [{ emailAddress: 'piet@bouwbedrijf.example' }], complaintFeedbackType: 'abuse' },
      }),
    );
    expect((await decide(complaint)).kind).toBe('complaint');
  });

  test('a DMARC aggregate report and a read receipt are reports; a person writing about a bounce is a reply', async () => {
    const aggregate = msg(
      {
        From: 'noreply-dmarc-support@google.com',
        To: 'dmarc@example-sender.nl',
        Subject: 'Report domain: example-sender.nl Submitter: google.com Report-ID: 123',
        'MIME-Version': '1.0',
        'Content-Type': 'multipart/mixed; boundary="d1"',
      },
      `--d1
Content-Type: text/plain

This is an aggregate report from google.com.

--d1
Content-Type: application/zip; name="google.com!example-sender.nl!1730000000!1730086399.zip"
Content-Disposition: attachment; filename="google.com!example-sender.nl!1730000000!1730086399.zip"
Content-Transfer-Encoding: base64

UEsDBAoAAAAAAA==
--d1--
`,
    );
    expect((await decide(aggregate)).kind).toBe('report');
    const receipt = msg(
      {
        From: 'piet@bouwbedrijf.example',
        To: 'anna@example-sender.nl',
        Subject: 'Gelezen: Uitbreiding bedrijfshal',
        'MIME-Version': '1.0',
        'Content-Type': 'multipart/report; report-type=disposition-notification; boundary="r1"',
      },
      `--r1\nContent-Type: text/plain\n\nUw bericht is gelezen.\n--r1\nContent-Type: message/disposition-notification\n\nDisposition: manual-action/MDN-sent-manually; displayed\n--r1--\n`,
    );
    expect((await decide(receipt)).kind).toBe('report');
    const person = msg(
      { From: 'Piet <piet@bouwbedrijf.example>', To: 'anna@example-sender.nl', Subject: 'Re: Uitbreiding bedrijfshal', 'In-Reply-To': ORIGINAL_ID },
      'Uw vorige mail kwam terug als onbestelbaar, maar deze kwam wel aan. Bel me volgende week.',
    );
    expect((await decide(person)).kind).toBe('reply');
  });

  test('a complaint counts toward the rate only from a known loop sender with DKIM that passed for it', () => {
    expect(isTrustedFeedbackLoop('feedback@arf.mail.yahoo.com', 'mx.example-sender.nl; dkim=pass header.d=yahoo.com header.s=s1; spf=pass')).toBe(true);
    expect(isTrustedFeedbackLoop('staff@hotmail.com', 'mx; dkim=pass header.d=hotmail.com')).toBe(true);
    expect(isTrustedFeedbackLoop('feedback@arf.mail.yahoo.com', 'mx.example-sender.nl; dkim=fail header.d=yahoo.com')).toBe(false);
    expect(isTrustedFeedbackLoop('feedback@arf.mail.yahoo.com', null)).toBe(false);
    // A person at a webmail provider whose mail is signed by that provider is no feedback loop.
    expect(isTrustedFeedbackLoop('piet.jansen@outlook.com', 'mx; dkim=pass header.d=outlook.com')).toBe(false);
    expect(isTrustedFeedbackLoop('someone@yahoo.com', 'mx; dkim=pass header.d=yahoo.com')).toBe(false);
    expect(isTrustedFeedbackLoop('fbl@partner.example', 'mx; dkim=pass header.d=partner.example', ['fbl@partner.example'])).toBe(true);
  });

  test('words alone ("Abuse report" from a webmail account) make a complaint, but never a structured one', async () => {
    const raw = msg(
      {
        From: 'Piet Jansen <piet.jansen@outlook.com>',
        To: 'anna@example-sender.nl',
        Subject: 'Abuse report',
        'Authentication-Results': 'mx; dkim=pass header.d=outlook.com',
      },
      `This is an abuse report about your mail.\n> Message-ID: ${ORIGINAL_ID}\n`,
    );
    const d = (await decide(raw)).report!;
    expect(d.kind).toBe('complaint');
    expect(!!d.structured && isTrustedFeedbackLoop(d.reporter, 'mx; dkim=pass header.d=outlook.com')).toBe(false);
  });
});

describe('the notices the corpus taught', () => {
  test('Domino: the reason on the line after a lone "because:" (a blank line between) is read', async () => {
    const raw = msg(
      {
        From: 'Postmaster@bouwbedrijf.example',
        To: 'anna@example-sender.nl',
        Subject: 'DELIVERY FAILURE: User Piet Jansen (piet@bouwbedrijf.example) not listed in Domino Directory',
      },
      `Your message

  Subject: Uitbreiding bedrijfshal

was not delivered to:

  piet@bouwbedrijf.example

because:

  User Piet Jansen (piet@bouwbedrijf.example) not listed in Domino Directory
`,
    );
    expect((await decide(raw)).report).toMatchObject({ kind: 'hard_bounce', reason: 'user_unknown', recipient: 'piet@bouwbedrijf.example' });
  });

  test("a report whose boundary appears nowhere: its fields are read from the body, the local delivery agent's words decide", async () => {
    const raw = msg(
      {
        From: 'Mail Delivery Subsystem <MAILER-DAEMON@mx.bouwbedrijf.example>',
        To: 'anna@example-sender.nl',
        Subject: 'Returned mail: Service unavailable',
        'MIME-Version': '1.0',
        'Content-Type': 'multipart/report; report-type=delivery-status; boundary="never.used/mx.bouwbedrijf.example"',
      },
      `The original message was received at Mon, 2 Nov 2026 10:00:00 +0100

   ----- The following addresses had permanent fatal errors -----
<piet@bouwbedrijf.example>

   ----- Transcript of session follows -----
mail.local: unknown user: piet
554 <piet@bouwbedrijf.example>... Service unavailable

Reporting-MTA: dns; mx.bouwbedrijf.example

Final-Recipient: RFC822; <piet@bouwbedrijf.example>
Action: failed
Status: 5.5.0
`,
    );
    expect((await decide(raw)).report).toMatchObject({ kind: 'hard_bounce', reason: 'user_unknown', recipient: 'piet@bouwbedrijf.example', status: '5.5.0' });
  });

  test("a gateway notice that returns the report it got: the wrapped report's fields are read", async () => {
    const raw = msg(
      {
        From: 'Mail Delivery Subsystem <MAILER-DAEMON@gw.relay.example>',
        To: 'anna@example-sender.nl',
        Subject: 'Returned mail: User unknown',
        'MIME-Version': '1.0',
        'Content-Type': 'multipart/mixed; boundary="outer"',
      },
      `--outer
Content-Type: text/plain

----- The following addresses had permanent delivery errors -----

--outer
Content-Type: message/rfc822

From: Mail Delivery Subsystem <MAILER-DAEMON@mx.relay.example>
Subject: Returned mail: User unknown
Message-ID: <dsn-4711@mx.relay.example>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="inner"

--inner
Content-Type: text/plain

----- The following addresses had permanent delivery errors -----
<piet@bouwbedrijf.example>

--inner
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.relay.example

Final-Recipient: RFC822; piet@bouwbedrijf.example
Action: failed
Status: 5.1.1
Diagnostic-Code: SMTP; 550 5.1.1 User unknown

--inner
Content-Type: text/rfc822-headers

Message-ID: ${ORIGINAL_ID}
From: anna@example-sender.nl

--inner--

--outer--
`,
    );
    // The relay's report carries its own Message-ID; the bounce acts on ours, in the message it returns.
    expect((await decide(raw)).report).toMatchObject({
      kind: 'hard_bounce',
      reason: 'user_unknown',
      recipient: 'piet@bouwbedrijf.example',
      status: '5.1.1',
      originalMessageId: ORIGINAL_ID.toLowerCase(),
    });
  });

  test('refused at our HELO name or MAIL FROM, before any recipient: the server refused us (soft, a block), whatever the words', async () => {
    const qmail = msg(
      { From: 'MAILER-DAEMON@mx.relay.example', To: 'anna@example-sender.nl', Subject: 'failure notice' },
      `Hi. This is the qmail-send program at mx.relay.example.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<piet@bouwbedrijf.example>:
Connected to 192.0.2.10 but my name was rejected.
Remote host said: 501 5.0.0 Invalid domain name

--- Below this line is a copy of the message.

${original}`,
    );
    const exim = msg(
      {
        From: 'Mail Delivery System <Mailer-Daemon@mx.relay.example>',
        To: 'anna@example-sender.nl',
        Subject: 'Mail delivery failed: returning message to sender',
        'X-Failed-Recipients': 'piet@bouwbedrijf.example',
      },
      `This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  piet@bouwbedrijf.example
    host mx.bouwbedrijf.example [192.0.2.20]
    SMTP error from remote mail server after MAIL FROM:<anna@example-sender.nl> SIZE=2048:
    553 5.1.0 example-sender.nl does not exist

------ This is a copy of the message, including all the headers. ------

${original}`,
    );
    const postfix = msg(
      { From: 'MAILER-DAEMON@smarthost.hosting.example (Mail Delivery System)', To: 'anna@example-sender.nl', Subject: 'Undelivered Mail Returned to Sender' },
      `This is the mail system at host smarthost.hosting.example.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<piet@bouwbedrijf.example>: host mx.bouwbedrijf.example[192.0.2.20] said: 553
    5.1.0 <anna@example-sender.nl>: Sender address does not exist (in reply to MAIL FROM
    command)

--- Below this line is a copy of the message.

${original}`,
    );
    for (const raw of [qmail, exim, postfix]) {
      const d = await decide(raw);
      expect(d.report).toMatchObject({ kind: 'soft_bounce', reason: 'blocked', recipient: 'piet@bouwbedrijf.example' });
      expect(SENDER_REFUSED.has(d.report!.reason as never)).toBe(true);
    }
  });

  test("a generic 5.0.0 gives way to the receiving server's own status; 5.1.0 with words of a bad address is hard", () => {
    expect(reasonOf({ status: '5.1.0', diagnostic: '550 #5.1.0 Address rejected.' })).toBe('user_unknown');
    expect(reasonOf({ status: '5.1.0', diagnostic: '550 5.1.0 MailFrom domain is listed in a blocklist' })).not.toMatch(/unknown/);
  });

  test('5.2.1 (a disabled mailbox) at RCPT TO with words that the user is unknown is hard; a disabled mailbox alone is not', () => {
    for (const words of [
      '550 5.2.1 Requested action not taken: mailbox unavailable',
      '550 5.2.1 <piet@bouwbedrijf.example>: Recipient address rejected: mailbox temporarily unavailable',
      '550 5.2.1 Mailbox not available',
    ]) {
      expect(reasonOf({ status: '5.2.1', diagnostic: words, atRcpt: true })).not.toBe('user_unknown');
    }
    expect(reasonOf({ status: '5.2.1', diagnostic: '550 5.2.1 <piet@bouwbedrijf.example>... User Unknown', atRcpt: true })).toBe('user_unknown');
    expect(reasonOf({ status: '5.2.1', diagnostic: '550 5.2.1 Mailbox disabled, not accepting messages', atRcpt: true })).toBe('other');
  });
});

describe('severity and addresses', () => {
  test('hard only when the address is bad: 5.1.1 at DATA is hard, a 5.7.1 block and a 4xx "unknown" are not', () => {
    expect(reasonOf({ status: '5.1.1', diagnostic: '550 5.1.1 User unknown', afterData: true })).toBe('user_unknown');
    expect(SENDER_REFUSED.has(reasonOf({ status: '5.7.1', diagnostic: '550 5.7.1 Relaying denied by policy' }))).toBe(true);
    expect(reasonOf({ status: '4.1.1', diagnostic: '450 4.1.1 User unknown in virtual alias table' })).not.toMatch(/user_unknown/);
    expect(reasonOf({ status: '5.2.2', diagnostic: '552 5.2.2 Mailbox full' })).toBe('mailbox_full');
    expect(reasonOf({ status: '5.7.26', diagnostic: '550 5.7.26 DMARC policy' })).toBe('auth_failure');
  });

  test('a message the server found too large is soft even when the status says the mailbox is bad', () => {
    const diagnostic = '550 RCPT TO:<piet@bouwbedrijf.example> max message size exceeded';
    expect(reasonOf({ status: '5.1.1', diagnostic, atRcpt: true })).toBe('message_too_large');
    expect(reasonOf({ status: '5.3.4', diagnostic: '552 5.3.4 Message size exceeded fixed limit' })).toBe('message_too_large');
    expect(reasonOf({ status: '5.2.2', diagnostic: '552 5.2.2 Mailbox size exceeded' })).toBe('mailbox_full');
  });

  test.each([
    ['rfc822; <Piet@Bouwbedrijf.example>', 'piet@bouwbedrijf.example'],
    ['"Piet Jansen" <piet@bouwbedrijf.example>', 'piet@bouwbedrijf.example'],
    ['<@relay1.example,@relay2.example:piet@bouwbedrijf.example>', 'piet@bouwbedrijf.example'],
    ['IMCEASMTP-piet+40bouwbedrijf+2Eexample@exchange.example', 'piet@bouwbedrijf.example'],
    ['|/usr/local/bin/procmail', null],
    ['/O=ORG/OU=EXCHANGE/CN=RECIPIENTS/CN=PIET', null],
    ['piet@bouwbedrijf.example:', 'piet@bouwbedrijf.example'],
  ])('%s -> %s', (raw, clean) => {
    expect(cleanRecipient(raw)).toBe(clean);
  });

  test('a hostile notice of 1 MB is decided in linear time', async () => {
    const body = `Delivery has failed.\n${'550 5.1.1 <a@b.example>: '.repeat(20_000)}${'a'.repeat(500_000)}`;
    const started = process.hrtime.bigint();
    const d = await decide(msg({ From: 'MAILER-DAEMON <>', Subject: 'Undeliverable' }, body));
    expect(['hard_bounce', 'soft_bounce']).toContain(d.kind);
    // A generous bound: the decision reads bounded slices only (a backtracking pattern would take minutes).
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5000);
  });
});
