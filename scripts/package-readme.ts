/**
 * The package's README is the short one for the npm page (README.npm.md); the project's README goes with it
 * as README.project.md. `npm pack` and `npm publish` swap them in (prepack: `pack`) and back (postpack:
 * `restore`); a swap a failed pack left behind is undone by either.
 */
import { copyFileSync, existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = join(ROOT, 'README.md');
const PROJECT = join(ROOT, 'README.project.md');
const NPM_PAGE = join(ROOT, 'README.npm.md');

function restore(): void {
  if (existsSync(PROJECT)) renameSync(PROJECT, README);
}

function pack(): void {
  restore();
  renameSync(README, PROJECT);
  copyFileSync(NPM_PAGE, README);
}

const command = process.argv[2];
if (command === 'pack') pack();
else if (command === 'restore') restore();
else {
  console.error('usage: tsx scripts/package-readme.ts pack|restore');
  process.exitCode = 2;
}
