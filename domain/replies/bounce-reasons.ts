/**
 * Why a delivery failed, as data: each reason with its severity and the words servers use for it.
 * Hard reasons say the address itself is bad (it is suppressed); every other reason leaves the address
 * usable. The sender-refused reasons say the receiving side refused us, not the recipient: they count
 * toward the mailbox's block rate. The phrases are matched as lower-case substrings (linear time) of the
 * server's diagnostic text, in the order of BOUNCE_RULES: the first rule with a matching phrase wins,
 * so a more specific wording is listed before a general one.
 */
export const HARD_REASONS = ['user_unknown', 'host_unknown', 'has_moved', 'mailbox_disabled'] as const;
export const SOFT_REASONS = [
  'mailbox_full',
  'expired',
  'blocked',
  'spam',
  'policy',
  'auth_failure',
  'rate_limited',
  'message_too_large',
  'content',
  'network',
  'system',
  'other',
] as const;
export type HardReason = (typeof HARD_REASONS)[number];
export type SoftReason = (typeof SOFT_REASONS)[number];
export type BounceReason = HardReason | SoftReason;

/** Reasons that say the receiver refused the sender (its reputation, content or authentication). */
export const SENDER_REFUSED: ReadonlySet<BounceReason> = new Set(['blocked', 'spam', 'policy', 'auth_failure']);

export function isHardReason(reason: BounceReason): reason is HardReason {
  return (HARD_REASONS as readonly string[]).includes(reason);
}

interface Rule {
  reason: BounceReason;
  phrases: readonly string[];
  /** A wording so specific that no status code overrides it (the rules that come first). */
  firm?: boolean;
  /** A wording only a refusal of the address itself uses: hard at any stage of the conversation. */
  sure?: boolean;
}

/**
 * Ordered: authentication, reputation and content refusals first (their texts often also say
 * "rejected" or "recipient"), then a full or disabled mailbox, then the address-is-bad wordings, then
 * the transient ones. A phrase is lower case and matched as a substring.
 */
export const BOUNCE_RULES: readonly Rule[] = [
  {
    reason: 'system',
    phrases: [
      'procmail',
      "couldn't create",
      'could not create',
      'mailer error',
      'pipe to |',
      'command died',
      'exit status',
      'internal system error',
      'internal error',
    ],
    firm: true,
  },
  {
    reason: 'network',
    phrases: ['malformed or unexpected name server reply', 'name server timeout', 'dns timeout', 'temporary dns'],
    firm: true,
  },
  {
    reason: 'content',
    // A mobile carrier's domain filter answers a sender it refuses so (the recipient chose to refuse it).
    phrases: ['550 : user unknown', '550: : user unknown'],
    firm: true,
  },
  {
    reason: 'policy',
    phrases: [
      'domain of sender address',
      'sender address rejected',
      'sender rejected',
      'sender domain',
      'sender verify',
      'sender not',
      'not have permission',
      'permission to post',
      'recipient preferences',
      'mailfrom domain',
    ],
    firm: true,
  },
  {
    reason: 'other',
    phrases: [
      'temporarily locked',
      'temporary locked',
      'temporarily disabled',
      'suspended',
      'suspend',
      'account is disabled',
      'account has been disabled',
      'account disabled',
      'disabled or discontinued',
      'mailbox disabled',
      'is disabled',
      'inactive',
      'over its',
      'is frozen',
      'account locked',
      'mailbox locked',
    ],
    firm: true,
  },
  {
    reason: 'host_unknown',
    phrases: [
      "couldn't find a mail exchanger",
      'does not accept mail',
      "doesn't receive email",
      'dns lookup failure',
      'domain does not exist',
      'domain name not found',
      'host not found',
      'no such domain',
      'host or domain name not found',
      'unrouteable mail domain',
      'nxdomain',
    ],
    firm: true,
  },
  {
    reason: 'user_unknown',
    phrases: [
      "address couldn't be found",
      'address could not be found',
      'does not exist at the organization',
      'recipient name is not recognized',
      "this user doesn't have a",
      'no valid recipients',
      'invalid final delivery userid',
      'addressee unknown',
      'user unknown in virtual',
      'user unknown in local recipient table',
      'unknown in relay recipient table',
      'no mailbox here by that name',
      'not listed in public name & address book',
      'not listed in domino directory',
      'mail.local: unknown user',
    ],
    firm: true,
    sure: true,
  },
  {
    reason: 'user_unknown',
    phrases: [
      'recipient address rejected: access denied',
      'user unknown',
      'unknown user',
      'no such user',
      'no such mailbox',
      'does not exist',
      "doesn't exist",
      'doesn\u2019t exist',
      'user not found',
      'no mailbox here by that name',
      'invalid recipient',
      'destinataire invalide',
      "doesn't have a",
      'not listed in',
      'user not exist',
      'invalid final delivery userid',
      'addressee unknown',
    ],
    firm: true,
  },
  {
    reason: 'auth_failure',
    phrases: [
      'dmarc',
      'spf check',
      'spf fail',
      'spf record',
      'sender policy framework',
      'dkim',
      'unauthenticated email',
      'not authenticated',
      'authentication failed',
      'failed authentication',
      'authentication checks',
      'does not meet the required authentication',
      'sender authentication',
      'sender id',
      'domainkeys',
      'is not permitted to send',
      'not designated as permitted sender',
    ],
  },
  {
    reason: 'rate_limited',
    phrases: [
      'rate limit',
      'ratelimit',
      'rate-limit',
      'rate of',
      'too many messages',
      'too many connections',
      'too many concurrent',
      'too many recipients',
      'too many emails',
      'too many mails',
      'exceeded the rate',
      'sending rate',
      'throttl',
      'temporarily deferred',
      'slow down',
      'receiving mail at a rate',
      'exceeded the maximum number of connections',
      'connection limit',
      'try to reduce',
      'unusual rate',
      'too fast',
    ],
  },
  {
    reason: 'spam',
    phrases: [
      'spam',
      'unsolicited',
      'junk mail',
      'bulk mail',
      'bulk e-mail',
      'bulk email',
      'scored too high',
      'content filter',
      'message filtered',
      'classified as',
      'suspicious',
      'phishing',
    ],
  },
  {
    reason: 'content',
    phrases: [
      'virus',
      'malware',
      'infected',
      'banned file',
      'content rejected',
      'prohibited content',
      'media error',
      'header error',
      'rfc 5322',
      'rfc5322',
      'rfc 2822',
      'rfc2822',
      'not compliant',
      'non-compliant',
      'bare lf',
      'invalid message',
    ],
  },
  {
    reason: 'blocked',
    phrases: [
      'blacklist',
      'black list',
      'blocklist',
      'block list',
      'blocked',
      'dnsbl',
      ' rbl',
      'rbl ',
      'spamhaus',
      'spamcop',
      'sorbs',
      'barracudacentral',
      'listed at',
      'listed on',
      'listed in',
      'reputation',
      'reverse dns',
      'reverse lookup',
      'ptr record',
      'no ptr',
      'rdns',
      'hostname lookup',
      'does not resolve',
      'client host rejected',
      'access denied',
      'banned',
      'your ip',
      'ip address',
      'connection refused by',
      'not allowed to send',
      'poor',
      'denied by',
      'rejected by',
      'refused by',
    ],
  },
  {
    reason: 'message_too_large',
    phrases: [
      'message too large',
      'message too big',
      'message is too large',
      'message is too big',
      'message size exceeds',
      'size exceeds',
      'message size exceeded',
      'max message size',
      'exceeds the maximum size',
      'exceeds size limit',
      'message length exceeds',
      'too large',
      'size limit',
    ],
  },
  {
    reason: 'mailbox_full',
    phrases: [
      'mailbox full',
      'mailbox is full',
      'mailbox has exceeded',
      'mailbox size',
      'full mailbox',
      'quota',
      'over the limit',
      'exceeded storage',
      'insufficient storage',
      'not enough storage',
      'out of storage',
      'storage allocation',
      'disk full',
      'too much mail',
      'mail box full',
      'user is over',
      'account is full',
      'inbox is full',
      'box is full',
      'mailfolder is full',
    ],
  },
  {
    reason: 'has_moved',
    phrases: ['has moved', 'address has changed', 'no longer at this', 'user not local', 'not local; please try', 'moved to'],
  },
  {
    reason: 'host_unknown',
    phrases: [
      'host unknown',
      'unknown host',
      'host not found',
      'unknown domain',
      'domain not found',
      'domain does not exist',
      'domain name not found',
      'no such domain',
      'name service error',
      'host or domain name not found',
      'unrouteable mail domain',
      'unroutable mail domain',
      'mx lookup',
      'no mx',
      'nxdomain',
      'non-existent domain',
      'nonexistent domain',
      "couldn't find any host",
      'could not find any host',
      'no such host',
      'bad destination system',
      'does not accept mail',
      'accepts no mail',
      'null mx',
      'unrouteable address',
      'domain is not',
      'invalid domain',
    ],
  },
  {
    reason: 'user_unknown',
    phrases: [
      'user unknown',
      'unknown user',
      'no such user',
      'no such mailbox',
      'no such recipient',
      'no such address',
      'no such account',
      'unknown recipient',
      'recipient unknown',
      'unknown address',
      'address unknown',
      'addressee unknown',
      'unknown or illegal alias',
      'unknown local part',
      'user not found',
      'recipient not found',
      'mailbox not found',
      'address not found',
      'account not found',
      'does not exist',
      "doesn't exist",
      'doesn\u2019t exist',
      'not exist',
      'invalid recipient',
      'invalid mailbox',
      'invalid address',
      'invalid user',
      'not a valid mailbox',
      'not a valid recipient',
      'no mailbox here',
      'no mailbox by that name',
      'mailbox unavailable',
      'mailbox not available',
      'no account by that name',
      "doesn't have a",
      'does not have an account',
      'not our customer',
      'address rejected',
      'bad recipient',
      'recipient rejected',
      'recipient address rejected',
      'rejected recipient',
      'no valid recipients',
      'not listed in',
      'unknown in virtual',
      'unknown in local',
      'unknown in relay',
      'user invalid',
      'undeliverable address',
      'no such person',
      'not a known user',
      'has no mailbox',
      'user doesn',
    ],
  },
  {
    reason: 'mailbox_disabled',
    phrases: [
      'deactivated',
      'no longer active',
      'no longer exists',
      'account closed',
      'account has been closed',
      'mailbox closed',
      'has been deleted',
      'account was deleted',
    ],
  },
  {
    reason: 'policy',
    phrases: [
      'policy',
      'relay',
      'not authorized',
      'unauthorized',
      'not permitted',
      'administratively',
      'prohibited',
      'restricted',
      'sender address rejected',
      'sender rejected',
      'refused',
      'rejected',
      'denied',
      'not accepted',
      'security',
      'tls',
      'encryption',
      'starttls',
      'certificate',
      'suspend',
      'disabled',
      'inactive',
      'frozen',
      'locked',
    ],
  },
  {
    reason: 'expired',
    phrases: [
      'retry timeout',
      'retry time',
      'expired',
      'timed out',
      'timeout',
      'giving up',
      'gave up',
      'too long',
      'could not be delivered within',
      'not been delivered',
      'undeliverable for',
      'delivery time',
      'deferred for',
      'queue',
      'was not delivered for',
      'delayed for',
      'failed for',
      'attempts',
    ],
  },
  {
    reason: 'network',
    phrases: [
      'connection refused',
      'connection reset',
      'lost connection',
      'could not connect',
      'unable to connect',
      'connect to',
      'no route',
      'network',
      'unreachable',
      'dns',
      'temporary failure',
      'broken pipe',
      'conversation with',
    ],
  },
  {
    reason: 'system',
    phrases: [
      'system error',
      'internal error',
      'server error',
      'mailer error',
      'local error',
      'configuration error',
      'loop',
      'too many hops',
      'system config',
      'not available',
      'unavailable',
      'out of memory',
      'resources',
      'try again later',
      'mail system',
      'pipe to',
      'command failed',
      'exit code',
      'syntax error',
      'command unrecognized',
      'error',
    ],
  },
];

/** The reason an enhanced status code (RFC 3463) says, when its text says nothing more specific. */
export function reasonOfStatus(status: string | null): BounceReason | null {
  if (!status) return null;
  const [cls, subject, detail] = status.split('.');
  const sd = `${subject}.${detail}`;
  if (cls !== '4' && cls !== '5') return null;
  switch (sd) {
    case '1.1':
    case '1.3':
      return cls === '5' ? 'user_unknown' : 'other';
    case '1.2':
    case '1.10':
      return cls === '5' ? 'host_unknown' : 'network';
    case '1.6':
      return 'has_moved';
    case '1.7':
    case '1.8':
      return 'policy';
    case '2.1':
      return 'other';
    case '2.2':
      return 'mailbox_full';
    case '2.3':
    case '3.4':
      return 'message_too_large';
    case '3.2':
      return cls === '5' ? 'host_unknown' : 'system';
    case '4.4':
      return cls === '5' ? 'host_unknown' : 'network';
    case '4.1':
    case '4.2':
    case '4.0':
      return 'network';
    case '4.7':
      return 'expired';
    case '7.1':
    case '7.0':
    case '7.606':
      return 'policy';
    case '7.23':
    case '7.25':
    case '7.26':
    case '7.27':
    case '7.7':
    case '7.509':
    case '7.515':
      return 'auth_failure';
  }
  if (subject === '6') return 'content';
  if (subject === '7') return 'policy';
  if (subject === '3' || subject === '5') return 'system';
  return null;
}

/** The first rule whose phrase occurs in the text (lower case), or null, with its `firm` and `sure` marks. */
export function ruleOfText(text: string): { reason: BounceReason; firm: boolean; sure: boolean } | null {
  const t = text.toLowerCase();
  for (const rule of BOUNCE_RULES) if (rule.phrases.some((p) => t.includes(p))) return { reason: rule.reason, firm: !!rule.firm, sure: !!rule.sure };
  return null;
}
