import { createHmac, randomBytes } from 'node:crypto';
import net from 'node:net';
import { hostname } from 'node:os';
import { BlockedDestinationError } from '../destination';
import { resolveMailHost } from '../mail/connect';
import type { CheckResult } from '../../../domain/contacts/email-verification';

/**
 * The SMTP RCPT probe: asks the domain's mail host whether it would take mail for the address,
 * and for an address that cannot exist at the same domain (a catch-all domain takes both), then
 * leaves without sending anything. It never sends DATA: the conversation stops after RCPT TO with
 * RSET and QUIT, so no message can be delivered.
 *
 * It is careful with the servers it asks: one connection per domain at a time, a pause between two
 * probes of one domain, a time budget per probe, and no probe at all while this host's outbound
 * port 25 looks blocked (many clouds and ISPs block it; every probe would only time out).
 */

export interface SmtpProbeResult {
  /** pass: the server accepted the address at RCPT TO; fail: it refused it; unknown: it could not tell. */
  smtp: Exclude<CheckResult, null>;
  /** pass: a made-up address was refused; fail: it was accepted (the domain takes every address); null: not asked or not telling. */
  catch_all: CheckResult;
  /** A line for a person: what the server answered. */
  detail: string;
  /** A 4xx answer (greylisting, a busy server): a later probe may decide. */
  temporary: boolean;
}

export interface SmtpProbe {
  /** Probe `address` at these mail hosts, the preferred first (the next is tried when one cannot be reached). */
  probe(address: string, mxHosts: string[]): Promise<SmtpProbeResult>;
}

export interface SmtpProbeOptions {
  /** The name this host gives in EHLO/HELO (a name whose A record and PTR match this host's address, or servers refuse it). */
  heloName: string;
  /** The reverse-path in MAIL FROM; '' for the null sender `<>`. */
  sender: string;
  /** The whole probe, from connecting to QUIT (default 20 s). */
  budgetMs?: number;
  /** Connecting, and each reply (default 10 s; never past the budget). */
  readTimeoutMs?: number;
  /** Between the end of a probe of a domain and the start of the next one of that domain (default 2 s). */
  perDomainIntervalMs?: number;
  /** The longest reply line taken, CRLF included (default 2048); a longer one is a protocol error. */
  maxLineBytes?: number;
  /**
   * Where to connect for a mail host. Default: its address on port 25, resolved and checked by the
   * destination policy (a mail host that resolves to this machine or a private network is never
   * asked: anyone can point their domain's MX there). The tests point it at their servers.
   */
  connect?: (mxHost: string) => Promise<{ host: string; port: number }> | { host: string; port: number };
  /** After this many domains in a row could not be reached, with no greeting ever, outbound port 25 is taken as blocked (default 3). */
  blockedAfterDomains?: number;
  /** How long no probe is tried once port 25 is taken as blocked (default 30 min). */
  blockedCooldownMs?: number;
  /** Where the one warning about a blocked port 25 goes. */
  log?: (line: string) => void;
  now?: () => number;
}

/** One reply: its code and its lines' text (the code and separator removed). */
interface Reply {
  code: number;
  lines: string[];
}

class ProbeError extends Error {
  constructor(
    message: string,
    /** Could not connect at all (refused, unreachable, no answer to the connection): counts towards a blocked port 25. */
    readonly unreachable = false,
  ) {
    super(message);
    this.name = 'ProbeError';
  }
}

/** A reply with more lines than this is not a server's honest answer. */
const MAX_REPLY_LINES = 100;
/** The server's text as shown in a detail line. */
const TEXT_SHOWN = 200;

export function createSmtpProbe(opts: SmtpProbeOptions): SmtpProbe {
  const budgetMs = opts.budgetMs ?? 20_000;
  const readTimeoutMs = opts.readTimeoutMs ?? 10_000;
  const intervalMs = opts.perDomainIntervalMs ?? 2_000;
  const maxLineBytes = opts.maxLineBytes ?? 2048;
  const connectTo =
    opts.connect ??
    (async (mxHost: string) => {
      const target = await resolveMailHost('smtp', mxHost, 25);
      return { host: target.address, port: 25 };
    });
  const blockedAfter = opts.blockedAfterDomains ?? 3;
  const cooldownMs = opts.blockedCooldownMs ?? 30 * 60_000;
  const log = opts.log ?? (() => undefined);
  const now = opts.now ?? Date.now;
  // The made-up local part is the same for a domain on every probe of this process, so a greylisting
  // server that deferred it once knows it on the retry; it is keyed so that nobody can guess it.
  const madeUpKey = randomBytes(32);

  /** The tail of each domain's queue: a probe waits for the one before it. */
  const tails = new Map<string, Promise<void>>();
  /** When each domain's last probe ended (entries older than the interval are dropped). */
  const lastEnded = new Map<string, number>();
  /** Port 25: whether any server ever greeted us, the domains that could not be reached since, and the cool-down. */
  let greeted = false;
  const unreachableDomains = new Set<string>();
  let blockedUntil = 0;
  let warned = false;

  function blocked(): boolean {
    return now() < blockedUntil;
  }

  function noteUnreachable(domain: string): void {
    if (greeted) return;
    unreachableDomains.add(domain);
    if (unreachableDomains.size < blockedAfter) return;
    unreachableDomains.clear();
    blockedUntil = now() + cooldownMs;
    if (!warned) {
      warned = true;
      log(
        `SMTP probe: ${blockedAfter} domains in a row could not be reached on port 25 and no server has ever answered; outbound port 25 looks blocked on this host, so addresses are left unknown without a probe (tried again after ${Math.round(cooldownMs / 1000)} s)`,
      );
    }
  }

  async function oneAtATime<T>(domain: string, run: () => Promise<T>): Promise<T> {
    const before = tails.get(domain) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => mine);
    tails.set(domain, tail);
    await before;
    try {
      const wait = (lastEnded.get(domain) ?? -Infinity) + intervalMs - now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      return await run();
    } finally {
      const t = now();
      lastEnded.set(domain, t);
      if (lastEnded.size > 1000) for (const [d, at] of lastEnded) if (t - at >= intervalMs) lastEnded.delete(d);
      if (tails.get(domain) === tail) tails.delete(domain);
      release();
    }
  }

  async function probeAt(address: string, domain: string, mxHosts: string[]): Promise<SmtpProbeResult> {
    if (blocked()) return unknown('no probe: outbound port 25 looks blocked on this host', true);
    if (!mxHosts.length) return unknown('no mail host to ask');
    const deadline = now() + budgetMs;
    let lastError = '';
    for (const mxHost of mxHosts) {
      if (now() >= deadline) break;
      let session: Session;
      try {
        const target = await connectTo(mxHost);
        session = await Session.open(target.host, target.port, { deadline, readTimeoutMs, maxLineBytes, now });
      } catch (err) {
        if (err instanceof BlockedDestinationError) return unknown(`${mxHost} is not a public mail host; not asked`);
        lastError = `${mxHost}: ${(err as Error).message}`;
        continue;
      }
      try {
        return await converse(session, mxHost, address, domain, () => {
          greeted = true;
          unreachableDomains.clear();
        });
      } catch (err) {
        return unknown(`${mxHost}: ${(err as Error).message}`);
      } finally {
        session.close();
      }
    }
    noteUnreachable(domain);
    // Unreachable now (its server down, or this host's port 25 closed) is not an answer: try later.
    return unknown(`could not reach the mail host: ${lastError}`, true);
  }

  async function converse(s: Session, mxHost: string, address: string, domain: string, onGreeting: () => void): Promise<SmtpProbeResult> {
    const greeting = await s.reply();
    // Any greeting, even a refusal, shows that this host can reach port 25.
    onGreeting();
    if (greeting.code !== 220) return answered(mxHost, 'the greeting', greeting);
    let hello = await s.command(`EHLO ${opts.heloName}`);
    if (hello.code >= 500) hello = await s.command(`HELO ${opts.heloName}`);
    if (hello.code !== 250) return answered(mxHost, 'EHLO', hello);
    const mail = await s.command(`MAIL FROM:<${opts.sender}>`);
    if (mail.code !== 250) return answered(mxHost, 'MAIL FROM', mail);
    const rcpt = await s.command(`RCPT TO:<${address}>`);
    // A 421 closes the connection; any other answer leaves room for the made-up address.
    const madeUp = rcpt.code === 421 ? null : await s.command(`RCPT TO:<${madeUpLocalPart(domain)}@${domain}>`);
    await s.quietly('RSET');
    await s.quietly('QUIT');
    return decide(mxHost, rcpt, madeUp);
  }

  function madeUpLocalPart(domain: string): string {
    return `x${createHmac('sha256', madeUpKey).update(domain).digest('hex').slice(0, 23)}`;
  }

  return {
    async probe(address, mxHosts) {
      const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
      if (blocked()) return unknown('no probe: outbound port 25 looks blocked on this host', true);
      return oneAtATime(domain, () => probeAt(address, domain, mxHosts));
    },
  };
}

function unknown(detail: string, temporary = false): SmtpProbeResult {
  return { smtp: 'unknown', catch_all: null, detail, temporary };
}

/** A step before RCPT TO that did not go on: 4xx is worth a retry, anything else leaves the address unknown. */
function answered(mxHost: string, step: string, r: Reply): SmtpProbeResult {
  const temporary = r.code >= 400 && r.code < 500;
  return unknown(`${mxHost} answered ${shown(r)} at ${step}${temporary ? ' (a temporary refusal; try again later)' : ''}`, temporary);
}

type RcptAnswer = 'accepted' | 'refused' | 'policy' | 'temporary' | 'other';

/**
 * What an answer to RCPT TO says about the address. A 5xx refuses it only when it is about the
 * mailbox: a refusal of this host (a block list, a policy) says nothing about the address.
 */
export function rcptAnswer(r: Reply): RcptAnswer {
  if (r.code === 250 || r.code === 251) return 'accepted';
  if (r.code >= 400 && r.code < 500) return 'temporary';
  if (r.code < 500 || r.code > 599) return 'other';
  const text = r.lines.join(' ');
  const enhanced = /^\s*5\.(\d{1,3})\.(\d{1,3})\b/.exec(r.lines[0] ?? '');
  if (enhanced) {
    const [, subject, detail] = enhanced;
    if (subject === '7') return 'policy';
    // 5.2.2: the mailbox is full, so it exists; not a proof either way.
    if (subject === '2' && detail === '2') return 'other';
    if (subject === '1' || subject === '2') return 'refused';
  }
  if (r.code === 552) return 'other';
  if (/\b(block|blocked|blacklist|blocklist|denylist|spamhaus|policy|reputation|rbl|dnsbl|spam|relay|banned|not allowed|access denied|client host)/i.test(text))
    return 'policy';
  return 'refused';
}

function decide(mxHost: string, rcpt: Reply, madeUp: Reply | null): SmtpProbeResult {
  const a = rcptAnswer(rcpt);
  const m = madeUp ? rcptAnswer(madeUp) : null;
  const madeUpTemporary = m === 'temporary';
  if (a === 'accepted') {
    if (m === 'accepted')
      return { smtp: 'pass', catch_all: 'fail', detail: `${mxHost} accepts any address at this domain (a catch-all): ${shown(madeUp!)}`, temporary: false };
    if (m === 'refused') return { smtp: 'pass', catch_all: 'pass', detail: `${mxHost} accepted the address (${shown(rcpt)})`, temporary: false };
    return {
      smtp: 'pass',
      catch_all: 'unknown',
      detail: `${mxHost} accepted the address (${shown(rcpt)}); whether it takes any address is not known: ${madeUp ? shown(madeUp) : 'not asked'}`,
      temporary: madeUpTemporary,
    };
  }
  if (a === 'refused')
    return { smtp: 'fail', catch_all: m === 'refused' ? 'pass' : null, detail: `${mxHost} refused the address: ${shown(rcpt)}`, temporary: false };
  const catchAll: CheckResult = m === 'refused' ? 'pass' : m === 'accepted' ? 'fail' : m ? 'unknown' : null;
  if (a === 'temporary')
    return {
      smtp: 'unknown',
      catch_all: catchAll,
      detail: `${mxHost} answered ${shown(rcpt)} at RCPT TO (greylisting or a busy server; try again later)`,
      temporary: true,
    };
  if (a === 'policy') return { smtp: 'unknown', catch_all: catchAll, detail: `${mxHost} refused this host, not the address: ${shown(rcpt)}`, temporary: false };
  return { smtp: 'unknown', catch_all: catchAll, detail: `${mxHost} answered ${shown(rcpt)} at RCPT TO`, temporary: false };
}

/** A reply as a detail line shows it: its code and first line, without control characters, cut short. */
function shown(r: Reply): string {
  // eslint-disable-next-line no-control-regex
  const text = (r.lines[0] ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  const cut = text.length > TEXT_SHOWN ? `${text.slice(0, TEXT_SHOWN)}…` : text;
  return cut ? `${r.code} ${cut}` : String(r.code);
}

interface SessionLimits {
  deadline: number;
  readTimeoutMs: number;
  maxLineBytes: number;
  now: () => number;
}

/**
 * One SMTP connection, read a reply at a time. Lines are split as they arrive (each byte looked at
 * once), a line longer than the bound or a reply with too many lines ends the connection, and every
 * wait is bounded by the read timeout and the probe's deadline.
 */
class Session {
  private pending: Buffer = Buffer.alloc(0);
  private current: Reply | null = null;
  private readonly replies: Reply[] = [];
  private failure: ProbeError | null = null;
  private waiter: (() => void) | null = null;

  private constructor(
    private readonly socket: net.Socket,
    private readonly limits: SessionLimits,
  ) {
    socket.on('data', (chunk: Buffer) => this.take(chunk));
    socket.on('error', (err) => this.fail(new ProbeError(`the connection failed: ${(err as NodeJS.ErrnoException).code ?? err.message}`)));
    socket.on('close', () => this.fail(new ProbeError('the server closed the connection')));
  }

  static open(host: string, port: number, limits: SessionLimits): Promise<Session> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      const wait = Math.max(0, Math.min(limits.readTimeoutMs, limits.deadline - limits.now()));
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new ProbeError(`no connection within ${wait} ms`, true));
      }, wait);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new Session(socket, limits));
      });
      socket.once('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        socket.destroy();
        reject(new ProbeError(`could not connect (${err.code ?? err.message})`, true));
      });
    });
  }

  async command(line: string): Promise<Reply> {
    if (this.failure) throw this.failure;
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  /** RSET and QUIT: their answers do not matter, and a server that hung up already is fine. */
  async quietly(line: string): Promise<void> {
    try {
      await this.command(line);
    } catch {
      // the probe's answer is already known
    }
  }

  async reply(): Promise<Reply> {
    while (!this.replies.length) {
      if (this.failure) throw this.failure;
      const wait = Math.min(this.limits.readTimeoutMs, this.limits.deadline - this.limits.now());
      if (wait <= 0) throw new ProbeError('no answer within the time budget');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.fail(new ProbeError(wait < this.limits.readTimeoutMs ? 'no answer within the time budget' : `no answer within ${wait} ms`));
        }, wait);
        this.waiter = () => {
          clearTimeout(timer);
          this.waiter = null;
          resolve();
        };
      });
    }
    return this.replies.shift()!;
  }

  close(): void {
    this.socket.destroy();
  }

  private fail(err: ProbeError): void {
    if (!this.failure) this.failure = err;
    this.socket.destroy();
    this.waiter?.();
  }

  private take(chunk: Buffer): void {
    if (this.failure) return;
    // The unfinished line is at most maxLineBytes, so joining it to the new chunk stays linear.
    const data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let start = 0;
    for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
      if (nl + 1 - start > this.limits.maxLineBytes) return this.fail(new ProbeError(`a reply line longer than ${this.limits.maxLineBytes} bytes`));
      const end = nl > start && data[nl - 1] === 13 ? nl - 1 : nl;
      if (!this.line(data.toString('latin1', start, end))) return;
      start = nl + 1;
    }
    if (data.length - start >= this.limits.maxLineBytes) return this.fail(new ProbeError(`a reply line longer than ${this.limits.maxLineBytes} bytes`));
    this.pending = data.subarray(start);
    if (this.replies.length) this.waiter?.();
  }

  /** One reply line (`250-text` goes on, `250 text` or `250` ends the reply); false when the connection was ended. */
  private line(text: string): boolean {
    const m = /^([2-5]\d\d)(?:([ -])(.*))?$/.exec(text);
    if (!m) {
      this.fail(new ProbeError('a reply that is not SMTP'));
      return false;
    }
    const code = Number(m[1]);
    if (this.current && this.current.code !== code) {
      this.fail(new ProbeError('a multi-line reply whose codes differ'));
      return false;
    }
    const reply = this.current ?? { code, lines: [] };
    if (reply.lines.length >= MAX_REPLY_LINES) {
      this.fail(new ProbeError(`a reply of more than ${MAX_REPLY_LINES} lines`));
      return false;
    }
    reply.lines.push(m[3] ?? '');
    if (m[2] === '-') {
      this.current = reply;
    } else {
      this.current = null;
      this.replies.push(reply);
    }
    return true;
  }
}

/** The probe the configuration asks for (VERIFY_SMTP_PROBE, VERIFY_SMTP_HELO, VERIFY_SMTP_FROM); null when it is off. */
export function smtpProbeFrom(
  c: { VERIFY_SMTP_PROBE?: 'true' | 'false'; VERIFY_SMTP_HELO?: string; VERIFY_SMTP_FROM?: string },
  log: (line: string) => void = (line) => console.warn(line),
): SmtpProbe | null {
  if (c.VERIFY_SMTP_PROBE !== 'true') return null;
  return createSmtpProbe({ heloName: c.VERIFY_SMTP_HELO ?? hostname(), sender: c.VERIFY_SMTP_FROM ?? '', log });
}
