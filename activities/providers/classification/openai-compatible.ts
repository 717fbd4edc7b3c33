import { z } from 'zod';
import { chatJson, ChatModelConfig } from '../llm/chat-json';
import { estimateEuros, extractMeasures } from '../../../domain/classification/amounts';
import { Classifier, ClassifierInput, ClassificationResult, PROJECT_CATEGORIES, PROJECT_STAGES } from '../../../domain/classification/types';

/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, Azure OpenAI, vLLM, Ollama, LiteLLM...).
 * The model must answer one JSON object; it is validated with zod, and anything else is an
 * InvalidModelOutputError (retried by the stage, never written half-filled).
 */
export type OpenAiCompatibleConfig = ChatModelConfig;

export const PROMPT_KEY = 'signal-classification';
export const PROMPT_VERSION = '1';

const outputSchema = z.object({
  commercial_relevance: z.boolean(),
  relevance_reasons: z.array(z.string().min(1).max(300)).max(10),
  project_category: z.enum(PROJECT_CATEGORIES),
  project_stage: z.enum(PROJECT_STAGES).nullable(),
  estimated_size_eur: z.number().nonnegative().nullable(),
  confidence: z.number().min(0).max(1),
  fit_matches: z.array(z.string().min(1).max(100)).max(20).default([]),
});

export function renderPrompt(input: ClassifierInput): { system: string; user: string } {
  const products = input.profile.products.map((p) => `- ${p.key}: ${p.name} (keywords: ${p.fitKeywords.join(', ')})`).join('\n');
  const personas = input.profile.personas.map((p) => `- ${p.segment} (titles: ${p.titleKeywords.join(', ')})`).join('\n');
  const system = [
    `You classify public notices (permits, tenders, news) for a company: ${input.profile.name}.`,
    input.profile.propositionText ? `Its proposition: ${input.profile.propositionText}` : '',
    `Its products:\n${products}`,
    `Its buyer personas:\n${personas}`,
    'Answer with one JSON object and nothing else, with exactly these fields:',
    `commercial_relevance (boolean), relevance_reasons (array of short strings), project_category (one of ${PROJECT_CATEGORIES.join(', ')}),`,
    `project_stage (one of ${PROJECT_STAGES.join(', ')}, or null), estimated_size_eur (number or null: the project value in euros),`,
    'confidence (0 to 1, how sure you are), fit_matches (product keywords or persona segments the notice matches).',
  ]
    .filter(Boolean)
    .join('\n');
  const user = [`Type: ${input.signalType}`, `Language: ${input.language ?? 'unknown'}`, `Title: ${input.title}`, `Text: ${input.summary ?? '(none)'}`].join(
    '\n',
  );
  return { system, user };
}

export class OpenAiCompatibleClassifier implements Classifier {
  constructor(private readonly config: OpenAiCompatibleConfig) {}

  async classify(input: ClassifierInput): Promise<ClassificationResult> {
    const { data: out, model, promptHash } = await chatJson(this.config, renderPrompt(input), outputSchema, { temperature: 0 });
    // The text's own numbers stay the fallback when the model gives no size.
    const size = out.estimated_size_eur ?? estimateEuros(extractMeasures(`${input.title}\n${input.summary ?? ''}`)).euros;
    return {
      model,
      promptKey: PROMPT_KEY,
      promptVersion: PROMPT_VERSION,
      promptHash,
      commercialRelevance: out.commercial_relevance,
      relevanceReasons: out.relevance_reasons,
      projectCategory: out.project_category,
      projectStage: out.project_stage,
      estimatedSize: size,
      confidence: out.confidence,
      fitMatches: out.fit_matches,
      output: { ...out },
    };
  }
}
