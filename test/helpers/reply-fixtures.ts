import { readFileSync } from 'node:fs';
import path from 'node:path';

/** A real-looking message of test/fixtures/replies, as raw bytes. */
export const fixture = (name: string): Buffer => readFileSync(path.join(__dirname, '..', 'fixtures', 'replies', `${name}.eml`));
