import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { InvalidModelOutputError } from '../../../domain/classification/types';
import { guardedFetch } from '../destination';
import { PROVIDER_RESPONSE_MAX_BYTES, readLimitedText, ResponseTooLargeError } from '../http-fetch';

/**
 * The one client for OpenAI-compatible chat-completions endpoints (OpenAI, Azure OpenAI, vLLM, Ollama,
 * LiteLLM...): it sends a system and a user prompt, asks for one JSON object, and validates the answer
 * with the caller's zod schema. A transport failure, a 429 or a 5xx is a retryable ProviderError, any
 * other HTTP failure a final one; an answer that is not the schema is an InvalidModelOutputError
 * (retried by the activity, never stored half-filled). The prompt's sha256 goes with the answer.
 */
export interface ChatModelConfig {
  baseUrl: string; // e.g. https://api.openai.com/v1
  model: string;
  apiKey?: string;
  timeoutMs?: number;
}

export interface ChatPrompt {
  system: string;
  user: string;
}

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export function promptHash(prompt: ChatPrompt): string {
  return createHash('sha256').update(`${prompt.system}\n---\n${prompt.user}`).digest('hex');
}

export async function chatJson<S extends z.ZodType>(
  config: ChatModelConfig,
  prompt: ChatPrompt,
  schema: S,
  opts: { temperature: number },
): Promise<{ data: z.infer<S>; model: string; promptHash: string }> {
  let res: Response;
  try {
    res = await guardedFetch(`${config.baseUrl.replace(/\/$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
      body: JSON.stringify({
        model: config.model,
        temperature: opts.temperature,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: prompt.system },
          { role: 'user', content: prompt.user },
        ],
      }),
      signal: AbortSignal.timeout(config.timeoutMs ?? 60_000),
    });
  } catch (err) {
    throw new ProviderError(`LLM request failed: ${(err as Error).message}`, true);
  }
  let text: string;
  try {
    text = await readLimitedText(res, PROVIDER_RESPONSE_MAX_BYTES);
  } catch (err) {
    // A body past the limit is the server's doing, and it will answer the same again.
    if (err instanceof ResponseTooLargeError) throw new ProviderError(`LLM answer too large: ${err.message}`, false);
    throw new ProviderError(`LLM request failed while reading: ${(err as Error).message}`, true);
  }
  const json = safeJson(text);
  if (!res.ok)
    throw new ProviderError(`LLM answered HTTP ${res.status}: ${json?.error?.message ?? text.slice(0, 200)}`, res.status === 429 || res.status >= 500);
  const content = json?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new InvalidModelOutputError('the response has no choices[0].message.content');
  const parsed = schema.safeParse(safeJson(stripFences(content)));
  if (!parsed.success) {
    throw new InvalidModelOutputError(
      `model output does not match the schema: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}`,
    );
  }
  return { data: parsed.data, model: typeof json?.model === 'string' ? json.model : config.model, promptHash: promptHash(prompt) };
}

function stripFences(s: string): string {
  return s
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/```$/, '')
    .trim();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function safeJson(s: string): any {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}
