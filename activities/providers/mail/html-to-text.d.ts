// The part of html-to-text 9 (no bundled types) that parse.ts uses.
declare module 'html-to-text' {
  export interface HtmlToTextOptions {
    wordwrap?: number | false | null;
    limits?: { maxInputLength?: number; maxChildNodes?: number; maxDepth?: number; ellipsis?: string };
    selectors?: { selector: string; format?: string; options?: Record<string, unknown> }[];
  }
  export function convert(html: string, options?: HtmlToTextOptions): string;
}
