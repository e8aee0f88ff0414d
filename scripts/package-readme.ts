/**
 * The package's README is the short one for the npm page (npm/README.md); the project's README goes with it
 * as README.project.md. `npm pack` swaps them in (prepack: `pack`) and back (postpack: `restore`).
 *
 * Publish the tarball `npm pack` made (`npm publish eca-onboarding-<version>.tgz`): npm reads the page's
 * README from the tarball then, while `npm publish` in the repository reads it from the disk before prepack.
 *
 * Nothing is lost to a pack that fails midway: the project's README is copied aside, never moved, and put
 * back only while README.md is still the npm page; either command first undoes a swap left behind.
 */
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = join(ROOT, 'README.md');
const PROJECT = join(ROOT, 'README.project.md');
const NPM_PAGE = join(ROOT, 'npm', 'README.md');

const isNpmPage = () => readFileSync(README, 'utf8') === readFileSync(NPM_PAGE, 'utf8');

function restore(): void {
  if (!existsSync(PROJECT)) return;
  // README.md edited since the swap: the edit is kept, and the copy aside too, for whoever edited it.
  if (!isNpmPage()) return;
  copyFileSync(PROJECT, README);
  rmSync(PROJECT);
}

function pack(): void {
  restore();
  if (existsSync(PROJECT)) throw new Error(`${PROJECT} is left from an earlier pack and README.md was edited since`);
  copyFileSync(README, PROJECT);
  copyFileSync(NPM_PAGE, README);
}

const command = process.argv[2];
if (command === 'pack') pack();
else if (command === 'restore') restore();
else {
  console.error('usage: tsx scripts/package-readme.ts pack|restore');
  process.exitCode = 2;
}
