#!/usr/bin/env node
// The `eca` command. Installed from the package it runs the compiled CLI (dist/); in a source checkout,
// where the TypeScript sources sit beside it, it runs them through tsx so that an edit needs no build.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const source = new URL('../client/cli/index.ts', import.meta.url);
const compiled = new URL('../dist/client/cli/index.js', import.meta.url);

/** @type {unknown} */
let loaded;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  loaded = await import(source.href);
} else {
  loaded = await import(compiled.href);
}
const cli = /** @type {{ main: (argv: string[]) => Promise<number> }} */ (loaded);
process.exitCode = await cli.main(process.argv);
