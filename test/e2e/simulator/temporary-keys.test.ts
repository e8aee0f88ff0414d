/** The simulator's CLI without `--data-dir`: its temporary key directory (private keys) is gone when it ends. */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { startCli } from '../../unit/simulator/helpers.js';

/** Starts the simulator CLI without a data dir and gives its key directory, from the first line it prints. */
async function startWithoutDataDir(): Promise<{ child: ChildProcess; keysDir: string }> {
  const { child, line } = await startCli([]);
  const keysDir = /, keys in (.+)\)$/.exec(line)?.[1];
  assert.ok(keysDir?.startsWith(tmpdir()), line);
  return { child, keysDir: keysDir! };
}

describe('simulator CLI without --data-dir', function () {
  this.timeout(60_000);
  const left: string[] = [];

  after(async function () {
    for (const dir of left) await rm(dir, { recursive: true, force: true });
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`removes its temporary key directory on ${signal}`, async function () {
      const { child, keysDir } = await startWithoutDataDir();
      left.push(keysDir);
      assert.ok(
        (await readdir(keysDir)).some((name) => name.includes('private')),
        'no private key was written',
      );
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill(signal);
      assert.equal(await exited, 0);
      assert.equal(existsSync(keysDir), false, `${keysDir} is left behind with its private keys`);
    });
  }
});
