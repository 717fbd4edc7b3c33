import { BekendmakingenSourceProvider } from './bekendmakingen';
import { JsonApiSourceProvider } from './json-api';
import { RssSourceProvider } from './rss';
import type { SourceProvider } from './types';

export * from './types';

/** provider_key -> provider. */
export function createSourceProviders(): Map<string, SourceProvider> {
  const providers: SourceProvider[] = [new RssSourceProvider(), new JsonApiSourceProvider(), new BekendmakingenSourceProvider()];
  return new Map(providers.map((p) => [p.key, p]));
}
