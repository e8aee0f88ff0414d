/**
 * Prebuilds the workflow bundles a worker would otherwise build at every start (a few seconds of CPU
 * and ~100 MB of memory): both kinds, plain and with encrypted failures, into `dist/workflow-bundles/`
 * or the directory given. A worker started with `ECA_WORKFLOW_BUNDLE_DIR` pointing there loads them.
 *
 *   node --import tsx scripts/build-workflow-bundle.ts [dir]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { workflowBundle, workflowBundleFile } from '../workers/engine-worker.js';
import { ROOT } from './processes.js';

async function main(): Promise<void> {
  const dir = resolve(process.argv[2] ?? join(ROOT, 'dist', 'workflow-bundles'));
  await mkdir(dir, { recursive: true });
  for (const encryptFailures of [false, true]) {
    const { code } = await workflowBundle(encryptFailures);
    const file = join(dir, workflowBundleFile(encryptFailures));
    await writeFile(file, code);
    console.log(`${file}: ${(code.length / 1024).toFixed(0)} KiB`);
  }
}

main().catch((error: unknown) => {
  console.error(`build-workflow-bundle: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
