import { z } from 'zod';
import { chatJson, ChatModelConfig } from './providers/llm/chat-json';
import type { WriterInput, WrittenProposal } from '../domain/outreach/strategist';

/**
 * The strategist's model writer: any OpenAI-compatible chat-completions endpoint writes goal, brief,
 * rationale and one instruction per step from the outreach brief. Its JSON answer is validated with
 * zod (anything else is an InvalidModelOutputError, retried, never stored half-filled); prompt key,
 * version and sha256 hash go on the campaign. The contacts, channels and steps stay the strategist's.
 */
export const STRATEGIST_PROMPT_KEY = 'campaign-strategist';
export const STRATEGIST_PROMPT_VERSION = '1';

export type ModelWriterConfig = ChatModelConfig;

const outputSchema = (steps: number) =>
  z.object({
    goal: z.string().trim().min(1).max(2000),
    brief: z.string().trim().min(1).max(20000),
    rationale: z.string().trim().min(1).max(4000),
    step_instructions: z.array(z.string().trim().min(1).max(4000)).length(steps),
  });

export function renderStrategistPrompt(input: WriterInput): { system: string; user: string } {
  const system = [
    'You plan B2B outreach for a company. Write in the language of the recipient country (NL: Dutch) unless told otherwise.',
    'Use ONLY the facts listed; each has its source. Never invent numbers, names, dates or claims.',
    'Answer with one JSON object and nothing else: goal (one sentence), brief (the facts and the angle, for the writer of the messages),',
    'rationale (why this company, why now: cite the signal title and its URL), step_instructions (one instruction per step, in order).',
  ].join('\n');
  const user = [
    `Company: ${input.company.name} (${input.company.countryCode ?? 'unknown country'})`,
    input.proposition ? `Our proposition: ${input.proposition}` : '',
    input.brief.signal ? `Signal: "${input.brief.signal.title}" ${input.brief.signal.url ?? ''}` : 'Signal: none',
    `Facts:\n${input.brief.facts.map((f) => `- ${f.claim} [${f.sourceUrl}]`).join('\n') || '(none)'}`,
    `Score reasons: ${input.brief.scoreReasons.join('; ') || '(none)'}`,
    `Product fit: ${input.brief.products.map((p) => `${p.name} (${p.matched.join(', ')})`).join('; ') || '(none)'}`,
    `Contacts: ${input.contacts.map((c) => `${c.full_name}${c.title ? `, ${c.title}` : ''} via ${c.channels.join('/')}`).join('; ')}`,
    `Steps: ${input.steps.map((s, i) => `${i + 1}. ${s.channel} after ${s.delayDays} business days`).join('; ')}`,
  ]
    .filter(Boolean)
    .join('\n');
  return { system, user };
}

export class OpenAiCompatibleStrategistWriter {
  constructor(private readonly config: ModelWriterConfig) {}

  async write(input: WriterInput, base: WrittenProposal): Promise<WrittenProposal> {
    const { data: out, model, promptHash } = await chatJson(this.config, renderStrategistPrompt(input), outputSchema(input.steps.length), { temperature: 0.2 });
    return {
      ...base,
      goal: out.goal,
      brief: out.brief,
      rationale: out.rationale,
      steps: base.steps.map((s, i) => ({ ...s, instructions: out.step_instructions[i]! })),
      model,
      promptKey: STRATEGIST_PROMPT_KEY,
      promptVersion: STRATEGIST_PROMPT_VERSION,
      promptHash,
    };
  }
}
