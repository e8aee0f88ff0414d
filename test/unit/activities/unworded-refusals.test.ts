/**
 * Refusals decided from the spec's fields only, against the simulator over HTTP with the settings that break
 * the readings the spec does not promise: validateXML's texts carry no fixed words (`encryption-text-unworded`),
 * update answers carry no `error` (`no-error-field`), and create answers `isProcessed` false for XML validateXML
 * accepted (`create-format-refusal`). Whose fault a refusal is comes from a reference application validateXML
 * is asked about with the same keys, never from the words of a text.
 */
import assert from 'node:assert/strict';
import { configurationErrorKind } from '../../../activities/configuration-errors.js';
import { stepFailureInActivity } from '../../support/activity-context.js';
import { useSimulatorActivities } from '../../support/simulator-activities.js';

const bounds = { blockAfterMs: 60_000, anomalyAttempts: 3 };

describe('refusals told apart on spec fields (simulator over HTTP, unpromised readings broken)', function () {
  const world = useSimulatorActivities({
    unpromised: ['encryption-text-unworded', 'no-error-field', 'create-format-refusal'],
  });
  const activities = world.activities.bind(world);
  const input = world.input.bind(world);

  /** The brokerage holds another key for the firm until the returned function agrees the keys again. */
  async function keysRotated(): Promise<() => void> {
    const other = await world.sim.control.registerFirm({ name: 'OtherFirm' });
    const { previous } = world.sim.control.setFirmPublicKey(world.sim.csid, other.keys.firmPublicKey);
    return () => world.sim.control.setFirmPublicKey(world.sim.csid, previous);
  }

  it('validateXML: keys the brokerage cannot use are a configuration error though the text names no keys', async function () {
    const engine = activities();
    const application = await input('happy-r1');
    const agree = await keysRotated();
    await assert.rejects(
      engine.validateApplication(application),
      (error: Error) => configurationErrorKind(error) === 'keys' && /code 4012/.test(error.message),
    );
    agree();
    assert.equal((await engine.validateApplication(application)).valid, true);
    // Keys agreed again between the application's refusal and the reference: the application is asked again.
    const agreeMeanwhile = await keysRotated();
    let validations = 0;
    const fixedMeanwhile: typeof fetch = async (request, init) => {
      const response = await fetch(request, init);
      const url = request instanceof Request ? request.url : String(request);
      if (url.endsWith('/ws/eca/validateXML') && ++validations === 1) agreeMeanwhile();
      return response;
    };
    assert.equal((await activities(fixedMeanwhile).validateApplication(application)).valid, true);
    assert.equal(validations, 3, 'the application, the reference, the application again');
  });

  it("validateXML: an application's own errors need correction, whatever words they use", async function () {
    // The service words a content error with "signature": the reference application, accepted, says the keys are fine.
    const signatureWorded: typeof fetch = async (request, init) => {
      const response = await fetch(request, init);
      const url = request instanceof Request ? request.url : String(request);
      if (!url.endsWith('/ws/eca/validateXML')) return response;
      const body = (await response.json()) as { isValid: boolean; errors: Array<{ error: string }> };
      if (!body.isValid) body.errors = [{ error: 'Application 1: the signature of the customer is missing' }];
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const outcome = await activities(signatureWorded).validateApplication(
      await input('happy-r2', (xml) => xml.replace(' last="Doe"', '')),
    );
    assert.deepEqual(outcome, { valid: false, errors: ['Application 1: the signature of the customer is missing'] });
  });

  it('create: isProcessed false for XML validateXML accepts is retried, then blocks naming the causes; never a correction', async function () {
    const engine = activities();
    const marked = await input('happy-r3', (xml) =>
      xml.replace('<Applications', '<!-- format-refused -->\n<Applications'),
    );
    assert.equal((await engine.validateApplication(marked)).valid, true);
    let failure: Error | undefined;
    for (let attempt = 1; attempt <= 2; attempt++) {
      // Not processed: each attempt may send again (nothing was processed), and is refused again.
      await assert.rejects(engine.createAccount(marked), (error: Error) => {
        failure = error;
        return error.name === 'CreateNotProcessed';
      });
    }
    assert.equal(world.sim.control.calls().create, 2);
    assert.ok(failure);
    assert.equal(configurationErrorKind(failure), undefined, 'not blamed on the keys');
    assert.equal(
      (await stepFailureInActivity(failure, { attempts: 2, elapsedMs: 10_000 }, bounds))?.nonRetryable,
      false,
    );
    const blocked = await stepFailureInActivity(failure, { attempts: 3, elapsedMs: 20_000 }, bounds);
    assert.equal(blocked?.nonRetryable, true);
    assert.equal(blocked?.type, 'CreateNotProcessed');
    assert.match(blocked?.message ?? '', /XML format is invalid, wrong keys, or the service is down/);
    assert.match(blocked?.message ?? '', /the application is blocked/);
    assert.equal(world.sim.control.records({ externalId: 'happy-r3' }).externalIds[0]?.accounts.length ?? 0, 0);
    // Staff resubmit corrected XML: created once.
    const created = await engine.createAccount(await input('happy-r3'));
    assert.ok(created.created, JSON.stringify(created));
  });

  it('create: isProcessed false with keys the brokerage cannot use stays a configuration error', async function () {
    const engine = activities();
    const application = await input('happy-r4');
    const agree = await keysRotated();
    await assert.rejects(
      engine.createAccount(application),
      (error: Error) => configurationErrorKind(error) === 'keys' && /reference application/.test(error.message),
    );
    agree();
    assert.ok((await engine.createAccount(application)).created);
  });

  it('update: an answer without fileData is looked up, never taken for a refusal nor sent again', async function () {
    const engine = activities();
    const created = await engine.createAccount(await input('happy-r5'));
    assert.ok(created.created);
    const request = {
      csid: world.sim.csid,
      accountId: created.accountId,
      functionName: 'AbandonAccount' as const,
      known: [],
    };
    const agree = await keysRotated();
    const sent = await engine.sendApplicationUpdate(request);
    assert.ok(!sent.accepted && 'unknown' in sent, JSON.stringify(sent));
    assert.match(sent.unknown, /without fileData/);
    assert.match(sent.unknown, /reference application .*: the firm's keys may be at fault/);
    agree();
    // The workflow looks with getAmRequestStatus: nothing new listed, and nothing sent.
    const looked = await engine.sendApplicationUpdate({ ...request, lookOnly: true });
    assert.ok(!looked.accepted && 'unknown' in looked, JSON.stringify(looked));
    assert.equal(world.sim.control.calls().update, 1);
  });
});
