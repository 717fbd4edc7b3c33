// The part of mailparser 3 (no bundled types) that parse.ts uses.
declare module 'mailparser' {
  export interface EmailAddress {
    address?: string;
    name?: string;
  }
  export interface AddressObject {
    value: EmailAddress[];
    text: string;
  }
  export interface Attachment {
    contentType: string;
    content: Buffer;
    filename?: string;
  }
  export interface ParsedMail {
    headers: Map<string, unknown>;
    headerLines: { key: string; line: string }[];
    subject?: string;
    from?: AddressObject;
    to?: AddressObject | AddressObject[];
    date?: Date;
    messageId?: string;
    inReplyTo?: string;
    references?: string | string[];
    text?: string;
    html?: string | false;
    attachments: Attachment[];
  }
  export interface ParserOptions {
    keepDeliveryStatus?: boolean;
    skipImageLinks?: boolean;
    skipTextToHtml?: boolean;
    maxHtmlLengthToParse?: number;
  }
  export function simpleParser(source: Buffer | string, options?: ParserOptions): Promise<ParsedMail>;
}
