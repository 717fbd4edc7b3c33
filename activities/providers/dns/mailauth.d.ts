// mailauth ships no types: the parts the deliverability checks use (mailauth 4.9).
declare module 'mailauth/lib/spf' {
  export function spf(opts: {
    sender: string;
    ip: string;
    helo?: string;
    mta?: string;
    maxResolveCount?: number;
    maxVoidCount?: number;
    resolver?: (name: string, type: string) => Promise<unknown>;
  }): Promise<{
    domain: string;
    rr?: string;
    status: { result: 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror'; comment?: string };
    lookups?: { limit: number; count: number; void: number };
  }>;
}

declare module 'mailauth/lib/dmarc/get-dmarc-record' {
  function getDmarcRecord(
    domain: string,
    resolver: (name: string, type: string) => Promise<unknown>,
  ): Promise<false | ({ rr: string; isOrgRecord: boolean } & Record<string, string | number | boolean>)>;
  export = getDmarcRecord;
}

declare module 'mailauth/lib/tools' {
  export function getPublicKey(
    type: 'DKIM',
    name: string,
    minBitLength: number,
    resolver: (name: string, type: string) => Promise<unknown>,
  ): Promise<{ publicKey: string; rr: string; modulusLength?: number }>;
}
