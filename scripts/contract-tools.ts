/**
 * The contract tests' tools (test/e2e/contract/), fetched once into the per-user cache (scripts/cache.ts):
 *
 * - the OpenAPI Generator CLI jar, from Maven Central over HTTPS (or with `mvn dependency:copy` when that
 *   fails), its SHA-1 checked against the `.sha1` file published beside it;
 * - a Python virtual environment with schemathesis, openapi-spec-validator and the generated Python
 *   client's runtime dependencies, every version pinned;
 * - the generated Java client's dependencies (okhttp, gson...), resolved once with Maven from the
 *   generated pom.xml, so that the client compiles with a bare `javac` afterwards.
 *
 * `npm test` provisions them before its workers start (its `pretest`: `npm run servers -- contract`, or
 * this module run directly, prints the paths); tests call these functions in a `before` hook too, for a
 * file run alone. Concurrent processes wait for each other's build of an entry (scripts/cache.ts
 * provisionOnce) instead of building it twice.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  buildAtomically,
  cacheRoot,
  isExecutable,
  provisionOnce,
  run,
  seconds,
  ServerProvisioningError,
  which,
} from './cache.js';

export const OPENAPI_GENERATOR_VERSION = '7.17.0';
const GENERATOR_JAR_URL = `https://repo1.maven.org/maven2/org/openapitools/openapi-generator-cli/${OPENAPI_GENERATOR_VERSION}/openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`;

/** The Python packages of the contract venv: the tools, and what the generated Python client imports. */
export const CONTRACT_PYTHON_REQUIREMENTS = [
  'schemathesis==4.32.5',
  'openapi-spec-validator==0.9.0',
  'urllib3==2.8.0',
  'pydantic==2.14.4',
  'python-dateutil==2.9.0.post0',
  'typing-extensions==4.16.0',
];

function log(message: string): void {
  process.stderr.write(`[contract-tools] ${message}\n`);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

const memo = new Map<string, Promise<unknown>>();
function memoized<T>(key: string, provide: () => Promise<T>): Promise<T> {
  let promise = memo.get(key) as Promise<T> | undefined;
  if (!promise) {
    promise = provide();
    memo.set(key, promise);
    promise.catch(() => memo.delete(key));
  }
  return promise;
}

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url, { signal: AbortSignal.timeout(300_000) });
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

async function requireJava(what: string): Promise<{ java: string; javac: string }> {
  const [java, javac] = await Promise.all([which('java'), which('javac')]);
  if (!java || !javac) throw new ServerProvisioningError(`a JDK (java and javac, 11+) is needed for ${what}`);
  return { java, javac };
}

/**
 * The OpenAPI Generator CLI jar (OPENAPI_GENERATOR_JAR overrides), fetched from Maven Central when there
 * is no cached copy; its SHA-1 is the one Maven Central publishes.
 */
export function openapiGenerator(): Promise<string> {
  return memoized('generator', async () => {
    const override = process.env.OPENAPI_GENERATOR_JAR;
    if (override) {
      if (!(await exists(override))) {
        throw new ServerProvisioningError(`OPENAPI_GENERATOR_JAR=${override} does not exist`);
      }
      return override;
    }
    await requireJava('the OpenAPI Generator');
    const dir = join(cacheRoot(), 'openapi-generator', OPENAPI_GENERATOR_VERSION);
    const jar = join(dir, `openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`);
    await provisionOnce(
      dir,
      () => exists(jar),
      async () => {
        log(`fetching openapi-generator-cli ${OPENAPI_GENERATOR_VERSION} from Maven Central, first run only...`);
        const started = Date.now();
        await buildAtomically(dir, async (tmp) => {
          let expected: string;
          try {
            expected = (await download(`${GENERATOR_JAR_URL}.sha1`)).toString('utf8').trim().split(/\s+/)[0] ?? '';
          } catch (error) {
            throw new ServerProvisioningError(
              `cannot read the SHA-1 of openapi-generator-cli ${OPENAPI_GENERATOR_VERSION} (${GENERATOR_JAR_URL}.sha1): ${(error as Error).message}`,
            );
          }
          const target = join(tmp, `openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`);
          let bytes: Buffer;
          try {
            bytes = await download(GENERATOR_JAR_URL);
          } catch (error) {
            const mvn = await which('mvn');
            if (!mvn) {
              throw new ServerProvisioningError(
                `cannot fetch ${GENERATOR_JAR_URL} (${(error as Error).message}) and mvn is not installed`,
              );
            }
            log(`HTTPS download failed (${(error as Error).message}): trying mvn dependency:copy`);
            await run(
              mvn,
              [
                '-q',
                '-B',
                'dependency:copy',
                `-Dartifact=org.openapitools:openapi-generator-cli:${OPENAPI_GENERATOR_VERSION}`,
                `-DoutputDirectory=${tmp}`,
              ],
              { cwd: tmp },
            );
            bytes = await readFile(target);
          }
          const actual = createHash('sha1').update(bytes).digest('hex');
          if (actual !== expected) {
            throw new ServerProvisioningError(
              `openapi-generator-cli ${OPENAPI_GENERATOR_VERSION}: SHA-1 ${actual} is not the published ${expected}`,
            );
          }
          await writeFile(target, bytes);
        });
        log(`fetched openapi-generator-cli in ${seconds(started)}: ${jar}`);
      },
    );
    return jar;
  });
}

export interface ContractVenv {
  /** The venv's python (run tools as `python -m ...` or from `bin`). */
  python: string;
  /** The venv's bin directory (schemathesis, st, openapi-spec-validator). */
  bin: string;
}

/** Rewrites the scripts' `#!<tmp>/bin/python` lines to the venv's final place (a venv is not relocatable). */
async function relocateScripts(bin: string, from: string, to: string): Promise<void> {
  for (const name of await readdir(bin)) {
    const path = join(bin, name);
    if (!(await stat(path)).isFile()) continue;
    const text = await readFile(path).catch(() => undefined);
    if (!text || text.subarray(0, 2).toString() !== '#!') continue;
    const content = text.toString('utf8');
    if (content.includes(from)) await writeFile(path, content.split(from).join(to));
  }
}

/** The contract tests' Python venv (pinned requirements), created with python3 -m venv when not cached. */
export function contractVenv(): Promise<ContractVenv> {
  return memoized('venv', async () => {
    const key = createHash('sha256').update(CONTRACT_PYTHON_REQUIREMENTS.join('\n')).digest('hex').slice(0, 12);
    const dir = join(cacheRoot(), 'contract-venv', key);
    const bin = join(dir, 'bin');
    const python = join(bin, 'python');
    const marker = join(dir, '.complete');
    await provisionOnce(
      dir,
      () => exists(marker),
      async () => {
        const python3 = (await which('python3')) ?? (await which('python'));
        if (!python3) throw new ServerProvisioningError('python3 (3.9+, with venv) is needed for the contract tests');
        log(`creating the contract venv (${CONTRACT_PYTHON_REQUIREMENTS.join(' ')}), first run only...`);
        const started = Date.now();
        await buildAtomically(dir, async (tmp) => {
          await run(python3, ['-m', 'venv', tmp], {});
          await run(
            join(tmp, 'bin', 'python'),
            ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...CONTRACT_PYTHON_REQUIREMENTS],
            { cwd: tmp },
          );
          await relocateScripts(join(tmp, 'bin'), tmp, dir);
          await writeFile(join(tmp, '.complete'), `${CONTRACT_PYTHON_REQUIREMENTS.join('\n')}\n`);
        });
        log(`created the contract venv in ${seconds(started)}: ${dir}`);
      },
    );
    if (!(await isExecutable(python))) throw new ServerProvisioningError(`${python} is not executable`);
    return { python, bin };
  });
}

/**
 * The runtime class path of a generated Java client: the dependencies its pom.xml names, copied once
 * into the cache by Maven (keyed by the pom's content). Returns the directory of the jars.
 */
export function javaClientDependencies(pomXml: string): Promise<string> {
  const key = createHash('sha256').update(pomXml).digest('hex').slice(0, 16);
  return memoized(`java-${key}`, async () => {
    await requireJava('the generated Java client');
    const dir = join(cacheRoot(), 'contract-java-deps', key);
    const lib = join(dir, 'lib');
    const marker = join(dir, '.complete');
    await provisionOnce(
      dir,
      () => exists(marker),
      async () => {
        const mvn = await which('mvn');
        if (!mvn) throw new ServerProvisioningError('mvn (Maven) is needed to resolve the Java client dependencies');
        log(`resolving the generated Java client's dependencies with Maven, first run only...`);
        const started = Date.now();
        await buildAtomically(dir, async (tmp) => {
          await writeFile(join(tmp, 'pom.xml'), pomXml);
          await run(
            mvn,
            [
              '-q',
              '-B',
              'dependency:copy-dependencies',
              '-DincludeScope=compile',
              `-DoutputDirectory=${join(tmp, 'lib')}`,
            ],
            { cwd: tmp },
          );
          await writeFile(join(tmp, '.complete'), '');
        });
        log(`resolved the Java client's dependencies in ${seconds(started)}: ${lib}`);
      },
    );
    return lib;
  });
}

/** Options of each generator the contract tests use: package names, nothing that depends on the time of the run. */
export const GENERATOR_OPTIONS: Record<string, string[]> = {
  'typescript-fetch': ['supportsES6=true', 'hideGenerationTimestamp=true'],
  python: ['packageName=eca_onboarding_client', 'projectName=eca-onboarding-client', 'packageVersion=1.0.0'],
  java: [
    'library=okhttp-gson',
    'groupId=org.eca',
    'artifactId=eca-onboarding-client',
    'artifactVersion=1.0.0',
    'invokerPackage=org.eca.client',
    'apiPackage=org.eca.client.api',
    'modelPackage=org.eca.client.model',
    'hideGenerationTimestamp=true',
  ],
  csharp: ['packageName=Eca.Onboarding.Client', 'targetFramework=net8.0', 'hideGenerationTimestamp=true'],
};

/** Generates a client of the OpenAPI document `spec` into `out` with the cached generator (no tests, no docs). */
export async function generateClient(generator: string, spec: string, out: string): Promise<void> {
  const jar = await openapiGenerator();
  await run(
    'java',
    [
      '-jar',
      jar,
      'generate',
      '-i',
      spec,
      '-g',
      generator,
      '-o',
      out,
      `--additional-properties=${(GENERATOR_OPTIONS[generator] ?? []).join(',')}`,
      '--global-property=apiTests=false,modelTests=false,apiDocs=false,modelDocs=false',
    ],
    {},
  );
}

/** Provisions everything ahead: the generator, the venv, and the Java client's dependencies (of docs/openapi.json). */
export async function provisionContractTools(): Promise<void> {
  const [jar, venv] = await Promise.all([openapiGenerator(), contractVenv()]);
  console.log(`openapi-generator: ${jar}`);
  console.log(`contract venv:     ${JSON.stringify(venv)}`);
  const tmp = await mkdtemp(join(tmpdir(), 'eca-contract-tools-'));
  try {
    const document = join(import.meta.dirname, '..', 'docs', 'openapi.json');
    await generateClient('java', document, join(tmp, 'java'));
    const lib = await javaClientDependencies(await readFile(join(tmp, 'java', 'pom.xml'), 'utf8'));
    console.log(`java client deps:  ${lib}`);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  provisionContractTools().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
