import { z } from 'zod';
import { chatJson, ProviderError, type ChatModelConfig } from '../llm/chat-json';
import { InvalidModelOutputError } from '../../../domain/classification/types';
import { classifyReplyByRules, machineKind, type ReplyClassifier, type ReplyInput } from '../../../domain/replies/classify';
import { stripQuotedHistory } from '../../../domain/replies/quoted';
import { offeredSlots } from '../../../domain/replies/slots';
import { REPLY_INTENTS, type ReplyClassification } from '../../../domain/replies/types';

/**
 * Reply intent by a model behind any OpenAI-compatible endpoint. The model reads the reply (its
 * quoted history stripped) and answers one JSON object, validated with zod. When the model fails for
 * good (an answer that is not the schema, a 4xx such as a content filter) the rules' classification
 * is answered with `modelError` saying why; a failure that may pass (transport, 429, 5xx) is thrown
 * (the message is kept unprocessed and read again). Machines' messages (auto-replies, out-of-office
 * notices) never go to the model: the rules read them. Proposed times and the out-of-office date are
 * read by the rules (chrono-node) whatever the model says; the referral is the model's when it names
 * one with an address, else the rules'.
 */
export const REPLY_PROMPT_KEY = 'reply-intent';
export const REPLY_PROMPT_VERSION = '1';

const outputSchema = z.object({
  intent: z.enum(REPLY_INTENTS),
  confidence: z.number().min(0).max(1),
  summary: z.string().min(1).max(300),
  referral: z
    .object({ name: z.string().min(1).max(200), email: z.email() })
    .nullable()
    .default(null),
});

export function renderReplyPrompt(input: ReplyInput): { system: string; user: string } {
  const system = [
    'You triage replies to a sales e-mail. Answer with one JSON object and nothing else, with exactly these fields:',
    `intent (one of ${REPLY_INTENTS.join(', ')}), confidence (0 to 1), summary (one short sentence in English: what the reply says),`,
    'referral ({name, email} of the person the sender refers you to, or null).',
    'unsubscribe: the sender asks to be removed or not to be contacted again (wins over not_interested).',
    'meeting_request: the sender proposes or asks for a call or meeting. referral: the sender names someone else to contact.',
  ].join('\n');
  const user = [`From: ${input.fromAddress ?? 'unknown'}`, `Subject: ${input.subject ?? ''}`, '', stripQuotedHistory(input.text).slice(0, 4000)].join('\n');
  return { system, user };
}

export class OpenAiCompatibleReplyClassifier implements ReplyClassifier {
  constructor(private readonly config: ChatModelConfig) {}

  async classify(input: ReplyInput): Promise<ReplyClassification> {
    const rules = input.rules ?? classifyReplyByRules(input);
    if (machineKind(input).kind === 'auto_reply') return rules;
    let answer;
    try {
      answer = await chatJson(this.config, renderReplyPrompt(input), outputSchema, { temperature: 0 });
    } catch (err) {
      if (err instanceof InvalidModelOutputError || (err instanceof ProviderError && !err.retryable))
        return { ...rules, modelError: err.message.slice(0, 300) };
      throw err;
    }
    const { data, model } = answer;
    const withTimes = data.intent === 'meeting_request' || data.intent === 'interested';
    return {
      ...rules,
      intent: data.intent,
      confidence: data.confidence,
      summary: data.summary,
      referral: data.intent === 'referral' ? (data.referral ?? rules.referral) : null,
      offeredSlots: withTimes ? offeredSlots(stripQuotedHistory(input.text).slice(0, 4000), rules.language, input.sentAt, input.senderZone) : [],
      returnDate: data.intent === 'out_of_office' ? rules.returnDate : null,
      model,
      promptKey: REPLY_PROMPT_KEY,
      promptVersion: REPLY_PROMPT_VERSION,
    };
  }
}
