/**
 * Part of `npm run build`: bundles the workflows once (bundleWorkflowCode) into dist/workflow-bundle.js,
 * which the compiled worker loads (`workflowBundle: { codePath }`) instead of bundling at every start.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_FILE } from '../apps/worker/worker';

async function main() {
  const started = Date.now();
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: undefined });
  const out = path.resolve(__dirname, '..', WORKFLOW_BUNDLE_FILE);
  writeFileSync(out, code);
  console.log(`workflow bundle: ${out} (${(code.length / 1024).toFixed(0)} KiB, ${((Date.now() - started) / 1000).toFixed(1)}s)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
