/**
 * The package's own manifest (name and version): the first package.json above this module, from the
 * sources or from dist/. The CLI's `--version`, the API document and the worker's deployment version read it.
 */
import { existsSync, readFileSync } from 'node:fs';

export interface PackageManifest {
  name: string;
  version: string;
}

let manifest: PackageManifest | undefined;

export function packageManifest(): PackageManifest {
  if (manifest) return manifest;
  for (let dir = new URL('.', import.meta.url); dir.pathname !== '/'; dir = new URL('..', dir)) {
    const file = new URL('package.json', dir);
    if (!existsSync(file)) continue;
    const { name, version } = JSON.parse(readFileSync(file, 'utf8')) as Partial<PackageManifest>;
    manifest = { name: name ?? 'unknown', version: version ?? 'unknown' };
    return manifest;
  }
  return { name: 'unknown', version: 'unknown' };
}
