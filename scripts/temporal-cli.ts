/** Prints the Temporal CLI the stack and the tests will use, building it once when needed. */
import { resolveTemporalCli } from './lib/temporal-server';

try {
  console.log(resolveTemporalCli((line) => console.error(line)));
} catch (e) {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
}
