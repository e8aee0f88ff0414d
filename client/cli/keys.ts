/** `keys`: the codec keys' work on what is at rest: `keys rotate` re-encrypts the document store under the newest key. */
import type { Command } from 'commander';
import type { RotationReport } from '../../runtime/document-rotation.js';
import { exitCodeOf } from './exit-codes.js';
import { deferred, examples, globalOptions } from './options.js';
import { out } from './output.js';
import { progressBar } from './progress.js';
import type { Progress } from './progress.js';

const reencryptStoreAt = deferred(() => import('../../runtime/document-rotation.js'), 'reencryptStoreAt');

/** Failures listed one per line in the text summary; `-o json` lists every one. */
const LISTED_FAILURES = 20;

function rate(report: RotationReport): string {
  const seconds = report.elapsedMs / 1000;
  const perSecond = seconds > 0 ? Math.round(report.reencrypted / seconds) : report.reencrypted;
  return `${seconds.toFixed(1)} s, ${perSecond}/s`;
}

function summaryText(report: RotationReport): string {
  const verb = report.dryRun ? 'would re-encrypt' : 're-encrypted';
  const lines = [
    `${verb} ${report.reencrypted} of ${report.total} blobs under key ${report.keyId} (${rate(report)}); ` +
      `${report.current} already current, ${report.failed} failed` +
      (report.gone > 0 ? `, ${report.gone} deleted meanwhile` : ''),
  ];
  if (report.failed > 0) {
    lines.push('failed (left as they are, never deleted; configure their key and run again):');
    lines.push(...report.failures.slice(0, LISTED_FAILURES).map((failure) => `  ${failure.ref}  ${failure.message}`));
    if (report.failures.length > LISTED_FAILURES) {
      lines.push(`  … and ${report.failures.length - LISTED_FAILURES} more (-o json lists them all)`);
    }
  } else if (!report.dryRun) {
    lines.push('every blob is under the current key: older keys are no longer needed by the document store');
  }
  return lines.join('\n');
}

async function rotate(options: { dryRun?: boolean }, command: Command): Promise<void> {
  const { output, documentStore } = globalOptions(command);
  let progress: Progress | undefined;
  try {
    const report = await reencryptStoreAt(documentStore ?? '.data/documents', {
      dryRun: options.dryRun,
      onStart: async (total) => {
        progress = await progressBar(output, options.dryRun ? 'checking' : 're-encrypting', total);
      },
      onProgress: (_ref, outcome) => progress?.tick(outcome, outcome === 'failed'),
    });
    progress?.stop();
    progress = undefined;
    out(output, report, () => summaryText(report));
    if (report.failed > 0) process.exitCode = exitCodeOf('FAILED');
  } finally {
    progress?.stop();
  }
}

export function addKeyCommands(program: Command): void {
  const group = program
    .command('keys')
    .description('the codec keys (ECA_CODEC_KEYS) and what is encrypted at rest: rotate');
  const rotation = group
    .command('rotate')
    .description(
      're-encrypt every document store blob not under the first key of ECA_CODEC_KEYS, in place; ' +
        'resumable, and a blob whose key is missing is reported, never deleted',
    )
    .option('--dry-run', 'count and check what would be re-encrypted, write nothing')
    .action(rotate);
  examples(rotation, [
    ['keys rotate --dry-run', 'after putting the new key first: what a rotation would do'],
    ['keys rotate -o json', 'then drop the old key once it reports 0 failed'],
  ]);
  examples(group, [['keys rotate', 're-encrypt the document store under the newest key']]);
}
