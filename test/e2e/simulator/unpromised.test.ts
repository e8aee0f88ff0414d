/**
 * The settings that break readings the spec does not promise: named, checked, turned on and off at start, over
 * the control API and from the CLI. What each one changes is tested with the engine's behaviour it concerns.
 */
import assert from 'node:assert/strict';
import type { RunningSimulator } from '../../../simulator/server.js';
import { startSimulator } from '../../../simulator/server.js';
import { UNPROMISED_NAMES, parseUnpromised } from '../../../simulator/unpromised.js';
import { control, start, startCli } from '../../unit/simulator/helpers.js';

describe('simulator settings that break unpromised readings', function () {
  let sim: RunningSimulator | undefined;

  afterEach(async function () {
    await sim?.close();
    sim = undefined;
  });

  it('turns every setting on with all and refuses a name it does not know', async function () {
    assert.deepEqual([...parseUnpromised(['all'])], UNPROMISED_NAMES);
    assert.throws(() => parseUnpromised(['update-file-unlisted', 'kinder']), /kinder is not one of all, /);
    await assert.rejects(startSimulator({ unpromised: ['kinder'] }), /unpromised: kinder/);
  });

  it('starts with the settings asked for and changes them over the control API', async function () {
    ({ sim } = await start({ unpromised: ['pending-tasks-omitted'] }));
    assert.deepEqual((await control(sim, 'GET', '/unpromised')).body, { on: ['pending-tasks-omitted'] });
    const changed = await control(sim, 'PUT', '/unpromised', {
      'pending-tasks-omitted': false,
      'account-list-limit': true,
    });
    assert.deepEqual(changed.body, { on: ['account-list-limit'] });
    const refused = await control(sim, 'PUT', '/unpromised', { kinder: true });
    assert.equal(refused.status, 400);
    assert.match(JSON.stringify(refused.body), /kinder is not one of/);
    assert.deepEqual((await control(sim, 'GET', '/unpromised')).body, { on: ['account-list-limit'] });
  });

  it('takes the settings from --unpromised', async function () {
    const { child, line } = await startCli(['--unpromised', 'all']);
    try {
      const url = /listening on (\S+)/.exec(line)?.[1];
      assert.ok(url, line);
      const body = (await (await fetch(`${url}/_sim/unpromised`)).json()) as { on: string[] };
      assert.deepEqual(body.on, UNPROMISED_NAMES);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
