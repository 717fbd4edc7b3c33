/**
 * `npm run secrets:reseal`: after a new INTEGRATION_SECRET_KEY with the old one moved to
 * INTEGRATION_SECRET_KEYS, seals every sealed value again with the new key (as the owner, DATABASE_URL).
 * Safe to run twice and while the service runs; afterwards the old key can be dropped.
 */
import { loadConfig } from '../apps/shared/config';
import { createDb } from '../db/pool';
import { resealAll, valuesUnderOldKeys } from '../db/queries/sealed-secrets';
import { SecretBox } from '../db/secrets';

async function main() {
  const config = loadConfig();
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL (the owner connection) is required');
  if (!config.INTEGRATION_SECRET_KEY) throw new Error('INTEGRATION_SECRET_KEY (the key to seal with) is required');
  const box = new SecretBox(config.INTEGRATION_SECRET_KEY, config.INTEGRATION_SECRET_KEYS);
  const db = createDb(config.DATABASE_URL, 2);
  try {
    const counts = await resealAll(db, box);
    for (const c of counts)
      console.log(
        `${c.table}: ${c.resealed} resealed, ${c.current} already under key ${box.currentKeyId}, ${c.unreadable} unreadable, ${c.changed} changed meanwhile`,
      );
    if (counts.some((c) => c.unreadable > 0)) {
      console.error('some values no configured key opens were left as they are (set them again through the API)');
      process.exitCode = 2;
    }
    if (counts.some((c) => c.changed > 0)) {
      // Written meanwhile, perhaps by a process still sealing with the old key: keep that key until a run finds none.
      console.error('some values changed while this ran: run it again before dropping the old key');
      process.exitCode = 2;
    }
    // A last look at every value: one written behind the pass (by a process still on the old key) is found here.
    const left = (await valuesUnderOldKeys(db, box)).filter((l) => l.count > 0);
    if (left.length) {
      console.error(
        `still sealed with an old key: ${left.map((l) => `${l.table}.${l.column} ${l.count}`).join(', ')}; every process must seal with the new key, then run this again before dropping the old key`,
      );
      process.exitCode = 2;
    }
  } finally {
    await db.destroy();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
