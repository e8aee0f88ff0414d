/**
 * The Chromium that browser tests drive with playwright-core, without a download from a browser vendor:
 *
 * 1. `CHROMIUM_PATH`, when set (it must be an executable file);
 * 2. the machine's Chromium (Debian's `chromium` package), when installed;
 * 3. otherwise the Chromium shipped inside the npm package `@sparticuz/chromium`, fetched once from the npm
 *    registry with `npm pack` (the tarball's integrity is checked against the pinned value), unpacked with
 *    Node's Brotli and cached per user beside the Temporal servers (`~/.cache/eca-onboarding/chromium/`).
 *
 * The package is never installed into node_modules: it declares Node >= 22.17 while the project supports
 * Node 20, and only its binary is used (checked here with playwright-core on Node 20). `npm run servers --
 * browser` provisions it ahead of the tests.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { runCommand } from './run-command.js';
import { buildAtomically, cacheRoot, isExecutable, provisionOnce, seconds } from './cache.js';

export const CHROMIUM_PACKAGE = '@sparticuz/chromium';
export const CHROMIUM_PACKAGE_VERSION = '153.0.0';
/** The registry's `dist.integrity` of that version: a different tarball is refused. */
const CHROMIUM_PACKAGE_INTEGRITY =
  'sha512-jiGWqSvPMdu4+P9TilYqAR7yEGPEHINx+lCvE/NqNO/EHYzF/x1hUiI5T6ioVIt7dEy7n88byyT0vk+dnsgQwA==';

/** Installed Chromium binaries looked for before the package's. */
const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** What to do when no browser can be had, in the error every caller shows. */
const FIX = [
  `run \`npm run servers -- browser\` where the npm registry is reachable (it caches ${CHROMIUM_PACKAGE}@${CHROMIUM_PACKAGE_VERSION}),`,
  'install the Debian package (apt-get install chromium),',
  'or set CHROMIUM_PATH to a Chromium binary',
].join(' ');

/** No Chromium could be found or provisioned; the message says how to get one. */
export class BrowserProvisioningError extends Error {
  override readonly name = 'BrowserProvisioningError';
}

function log(message: string): void {
  process.stderr.write(`[browser] ${message}\n`);
}

/** The Chromium binary to launch, provisioning the package's once when the machine has none. */
export async function chromiumExecutable(): Promise<string> {
  const override = process.env.CHROMIUM_PATH;
  if (override !== undefined) {
    if (await isExecutable(override)) return override;
    throw new BrowserProvisioningError(`CHROMIUM_PATH=${override} is not an executable file; ${FIX}`);
  }
  for (const path of SYSTEM_CHROMIUM) if (await isExecutable(path)) return path;
  return packagedChromium();
}

/** The cached Chromium of the npm package, unpacked on first use. */
async function packagedChromium(): Promise<string> {
  const dir = join(cacheRoot(), 'chromium', CHROMIUM_PACKAGE_VERSION);
  const binary = join(dir, 'chromium');
  if (await isExecutable(binary)) return binary;
  try {
    await provisionOnce(
      dir,
      () => isExecutable(binary),
      async () => {
        log(
          `fetching ${CHROMIUM_PACKAGE}@${CHROMIUM_PACKAGE_VERSION} from the npm registry, first run only (70 MB)...`,
        );
        const started = Date.now();
        await buildAtomically(dir, async (tmp) => {
          const tarball = await npmPack(tmp);
          await verifyIntegrity(tarball);
          await runCommand('tar', ['-xzf', tarball, '-C', tmp]);
          const bin = join(tmp, 'package', 'bin');
          // The browser, and SwiftShader's GL libraries it loads from its own directory.
          await pipeline(
            createReadStream(join(bin, 'chromium.br')),
            createBrotliDecompress(),
            createWriteStream(join(tmp, 'chromium')),
          );
          await chmod(join(tmp, 'chromium'), 0o755);
          await unpackTar(join(bin, 'swiftshader.tar.br'), tmp);
          await rm(join(tmp, 'package'), { recursive: true, force: true });
          await rm(tarball, { force: true });
        });
        log(`unpacked Chromium in ${seconds(started)}: ${binary}`);
      },
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new BrowserProvisioningError(
      `no Chromium on this machine, and fetching one failed: ${reason}\nTo fix: ${FIX}`,
    );
  }
  return binary;
}

/** `npm pack` of the pinned version into `dir`: the registry the user's npm is configured for. */
async function npmPack(dir: string): Promise<string> {
  await runCommand(
    'npm',
    ['pack', `${CHROMIUM_PACKAGE}@${CHROMIUM_PACKAGE_VERSION}`, '--pack-destination', dir, '--silent'],
    {
      cwd: dir,
    },
  );
  const tarball = (await readdir(dir)).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack left no tarball in ${dir}`);
  return join(dir, tarball);
}

async function verifyIntegrity(tarball: string): Promise<void> {
  const digest = `sha512-${createHash('sha512')
    .update(await readFile(tarball))
    .digest('base64')}`;
  if (digest !== CHROMIUM_PACKAGE_INTEGRITY) {
    throw new Error(`${tarball} has integrity ${digest}, expected ${CHROMIUM_PACKAGE_INTEGRITY}`);
  }
}

/** A Brotli-compressed tar unpacked into `dir` (Node's Brotli, the system's tar). */
async function unpackTar(file: string, dir: string): Promise<void> {
  const tar = spawn('tar', ['-x', '-C', dir], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  tar.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve, reject) => {
    tar.on('error', reject);
    tar.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`tar -x ${file} exited with ${code}: ${stderr}`)),
    );
  });
  await Promise.all([pipeline(createReadStream(file), createBrotliDecompress(), tar.stdin), exited]);
}
