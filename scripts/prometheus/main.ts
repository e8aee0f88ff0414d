/**
 * `npm run prometheus`: writes the alert rules, compose's Prometheus configuration and the dashboard
 * under deploy/ from scripts/prometheus/.
 *
 *   --set name=value   a threshold other than the default (repeatable; rules.ts lists them)
 *   --out DIR          write only the alert rules, to DIR/alerts.yml (thresholds of your own)
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { generatedFiles, rulesYaml } from './files.js';
import { ThresholdError, thresholdsWith } from './rules.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { set: { type: 'string', multiple: true, default: [] }, out: { type: 'string' } },
  });
  if (values.out) {
    const file = join(values.out, 'alerts.yml');
    await mkdir(values.out, { recursive: true });
    await writeFile(file, rulesYaml(thresholdsWith(values.set)));
    console.log(`wrote ${file}`);
    return;
  }
  if (values.set.length) throw new ThresholdError('--set needs --out: the files under deploy/ keep the defaults');
  for (const [path, content] of Object.entries(generatedFiles())) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
    console.log(`wrote ${path}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(
    error instanceof ThresholdError || (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? 2 : 1,
  );
});
