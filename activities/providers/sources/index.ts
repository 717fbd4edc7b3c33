import { RssSourceProvider } from './rss';
import type { SourceProvider } from './types';

export * from './types';

/** provider_key -> provider. json_api and bekendmakingen arrive with the signal-processing work. */
export function createSourceProviders(): Map<string, SourceProvider> {
  const providers: SourceProvider[] = [new RssSourceProvider()];
  return new Map(providers.map((p) => [p.key, p]));
}
