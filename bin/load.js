// Loads one of the package's entry modules. Installed from the package it is the compiled one (dist/);
// in a source checkout, where the TypeScript sources sit beside it, the source through tsx, so that an
// edit needs no build.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

/**
 * @param {string} path the module's path from the package root, without extension (`client/cli/index`)
 * @returns {Promise<unknown>}
 */
export async function load(path) {
  const source = new URL(`../${path}.ts`, import.meta.url);
  if (existsSync(source)) {
    const { register } = await import('tsx/esm/api');
    register();
    return import(source.href);
  }
  return import(new URL(`../dist/${path}.js`, import.meta.url).href);
}
