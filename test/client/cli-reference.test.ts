/** The README's CLI reference and exit-code table are the commands' own help and the exit-code table, as generated now. */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { cliReference, README, regenerate } from '../../scripts/cli-reference.js';

describe('the README CLI reference', function () {
  it('is what npm run docs:cli generates from the commands now (run it after changing a command)', async function () {
    const readme = await readFile(README, 'utf8');
    const fresh = await regenerate(readme);
    assert.ok(fresh === readme, 'README.md is stale: run npm run docs:cli');
  });

  it('holds every command, with its examples', function () {
    const reference = cliReference();
    for (const name of [
      'eca apply',
      'eca bulk abandon',
      'eca schedules delete',
      'eca maintenance status',
      'eca completion',
      'eca api-keys revoke',
    ]) {
      assert.match(reference, new RegExp(`<code>${name}</code>`), name);
    }
    assert.equal((reference.match(/<details>/g) ?? []).length, (reference.match(/\nExamples:\n/g) ?? []).length);
  });
});
