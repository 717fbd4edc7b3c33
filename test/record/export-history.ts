import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveTemporalCli } from '../../scripts/lib/temporal-server';
import { testEnv } from '../helpers/tokens';

const HISTORIES = path.join(__dirname, '..', 'histories');

/** Writes a run's history (the CLI's JSON) to test/histories/<file>, for test/platform/replay.test.ts; without a run id, the latest run. */
export function exportHistory(workflowId: string, runId: string | undefined, file: string): void {
  const args = [
    'workflow',
    'show',
    '--workflow-id',
    workflowId,
    ...(runId ? ['--run-id', runId] : []),
    '--address',
    testEnv('TEMPORAL_ADDRESS'),
    '--output',
    'json',
  ];
  writeFileSync(path.join(HISTORIES, file), execFileSync(resolveTemporalCli(), args, { encoding: 'utf8' }));
}
