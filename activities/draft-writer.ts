import { z } from 'zod';
import { chatJson, ChatModelConfig } from './providers/llm/chat-json';
import type { DraftInput, WrittenDraft } from '../domain/outreach/draft';

/**
 * The sequence's model writer: any OpenAI-compatible chat-completions endpoint writes a step's
 * subject and body from the brief's sourced facts (or a task's note), validated with zod; the prompt
 * key and version go on the message. Used when the organization has an `llm` integration or LLM_*
 * is set; otherwise the template writer (domain/outreach/draft.ts) writes.
 */
import { DRAFT_PROMPT_KEY } from '../domain/outreach/draft';
export { DRAFT_PROMPT_KEY };
export const DRAFT_PROMPT_VERSION = '1';

export interface DraftWriter {
  write(input: DraftInput): Promise<WrittenDraft>;
}

const outputSchema = z.object({
  subject: z.string().trim().max(200).nullable(),
  body: z.string().trim().min(1).max(8000),
  confidence: z.number().min(0).max(1),
  risks: z.array(z.string().trim().min(1).max(200)).max(10),
});

export function renderDraftPrompt(input: DraftInput): { system: string; user: string } {
  const language = input.locale.toLowerCase().startsWith('nl') ? 'Dutch' : 'English';
  const system = [
    `You write one B2B outreach ${input.channel === 'email' ? 'e-mail' : `${input.channel} task note`} in ${language}, ${input.formality} register.`,
    'Use ONLY the facts listed, each with its source. Never invent numbers, names, dates or claims. No links except those given.',
    'Do not add a signature block with legal details or an unsubscribe line: the sender adds those.',
    'Answer with one JSON object: subject (null for a task), body, confidence (0..1, how sure you are it needs no edit), risks (short strings, empty when none).',
  ].join('\n');
  const b = input.brief;
  const user = [
    `Recipient: ${input.contact.fullName}${input.contact.title ? `, ${input.contact.title}` : ''} at ${input.company.name}`,
    `Sender: ${input.sender.name ?? 'the sender'}`,
    `Campaign goal: ${input.campaign.goal ?? input.campaign.name}`,
    `Step ${input.position}${input.followUp ? ' (a follow-up to an earlier e-mail)' : ''}: ${input.instructions ?? 'no instructions'}`,
    input.variant?.subject ? `Subject (use exactly): ${input.variant.subject}` : '',
    b?.signal ? `Signal: "${b.signal.title}" ${b.signal.url ?? ''}` : 'Signal: none',
    `Facts:\n${b?.facts.map((f) => `- ${f.claim} [${f.sourceUrl}]`).join('\n') || '(none: state no facts)'}`,
    `Products: ${b?.products.map((p) => p.name).join(', ') || '(none)'}`,
    input.rejection
      ? `A person rejected the previous draft${input.rejection.reason ? ` because: ${input.rejection.reason}` : ''}.\nPrevious subject: ${input.rejection.subject ?? ''}\nPrevious body:\n${input.rejection.body ?? ''}`
      : '',
    input.avoid?.length
      ? `Your previous draft stated things none of the facts supports: ${input.avoid
          .slice(0, 10)
          .map((a) => `"${a.slice(0, 100)}"`)
          .join(', ')}. Write it again without them; use only the facts and the names given above.`
      : '',
  ]
    .filter(Boolean)
    .join('\n');
  return { system, user };
}

export class OpenAiCompatibleDraftWriter implements DraftWriter {
  constructor(private readonly config: ChatModelConfig) {}

  async write(input: DraftInput): Promise<WrittenDraft> {
    const { data, model } = await chatJson(this.config, renderDraftPrompt(input), outputSchema, { temperature: 0.3 });
    return {
      subject: input.channel === 'email' ? (input.variant?.subject ?? ((data.subject ?? '') || null)) : null,
      body: data.body,
      model,
      promptKey: DRAFT_PROMPT_KEY,
      promptVersion: DRAFT_PROMPT_VERSION,
      confidence: data.confidence,
      risks: data.risks,
    };
  }
}
