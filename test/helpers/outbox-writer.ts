/**
 * A process that makes one change with its event (recordEvent, in one transaction, as the worker
 * role), says "committed" and then waits to be killed: test/events/webhooks.test.ts SIGKILLs it right after
 * the commit, before anything of it could deliver. Args: organization id, suppression value.
 */
import { createDb } from '../../db/pool';
import { addSuppression } from '../../db/queries/compliance/suppressions';
import { asOrganization } from '../../db/tenancy';

async function main() {
  const [org, value] = process.argv.slice(2);
  const db = createDb(process.env.TEST_WORKER_DB_URL!, 1);
  await asOrganization(db, org!, (tx) => addSuppression(tx, { organizationId: org!, scope: 'email', value: value!, reason: 'objection', createdBy: null }));
  process.stdout.write('committed\n');
  setInterval(() => undefined, 1000);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
