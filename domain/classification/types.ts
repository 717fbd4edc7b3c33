/** What a classifier sees and what it must answer; both implementations share it. */
export interface ClassifierInput {
  title: string;
  summary: string | null;
  signalType: string;
  language: string | null;
  profile: IndustryProfileInput;
}

export interface IndustryProfileInput {
  name: string;
  propositionText: string | null;
  products: Array<{ key: string; name: string; fitKeywords: string[] }>;
  personas: Array<{ segment: string; titleKeywords: string[] }>;
}

export const PROJECT_CATEGORIES = [
  'residential',
  'office',
  'education',
  'healthcare',
  'industrial',
  'retail',
  'infrastructure',
  'energy',
  'landscape',
  'other',
] as const;
export const PROJECT_STAGES = ['planning', 'permit_application', 'permit_granted', 'tender', 'construction', 'completed'] as const;

export interface ClassificationResult {
  model: string;
  promptKey: string | null;
  promptVersion: string | null;
  promptHash: string | null;
  commercialRelevance: boolean;
  relevanceReasons: string[];
  projectCategory: (typeof PROJECT_CATEGORIES)[number];
  projectStage: (typeof PROJECT_STAGES)[number] | null;
  estimatedSize: number | null;
  confidence: number;
  fitMatches: string[];
  output: Record<string, unknown>;
}

export interface Classifier {
  classify(input: ClassifierInput): Promise<ClassificationResult>;
}

/** The model answered, but not in the required shape: the stage may retry, then fails. */
export class InvalidModelOutputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidModelOutputError';
  }
}
