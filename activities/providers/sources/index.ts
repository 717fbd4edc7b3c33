import type { SecretBox } from '../../../db/secrets';
import { BekendmakingenSourceProvider } from './bekendmakingen';
import { JsonApiSourceProvider } from './json-api';
import { RssSourceProvider } from './rss';
import type { SourceProvider } from './types';

export * from './types';

/** provider_key -> provider. */
export function createSourceProviders(opts: { secrets?: SecretBox | null } = {}): Map<string, SourceProvider> {
  const providers: SourceProvider[] = [new RssSourceProvider(), new JsonApiSourceProvider(opts.secrets ?? null), new BekendmakingenSourceProvider()];
  return new Map(providers.map((p) => [p.key, p]));
}
