/**
 * Events that ride with validate and create (activities/event-riders.ts): written before the step calls the
 * brokerage, never a reason for the step to fail, and a create's `created` event written once the account
 * is known and answered as the log holds it, so that a later attempt answers the same account.
 */
import assert from 'node:assert/strict';
import { DefaultLogger } from '@temporalio/worker';
import { MockActivityEnvironment } from '@temporalio/testing';
import { withRidingEvents } from '../../../activities/event-riders.js';
import type { EventSink } from '../../../activities/events.js';
import type { NewEvent } from '../../../domain/events.js';
import type { ApplicationActivities, CreatedEvent, CreateOutcome } from '../../../workflows/application/activities.js';
import { RecordedEvents } from '../../support/events.js';

const APPLICATION = 'application:C1:X1/run-1';
const REF = { csid: 'C1', externalId: 'X1', application: { sha1: 'a'.repeat(40), length: 1, ref: 'x' } };

function event(seq: number, type: NewEvent['type'] = 'application.validated'): NewEvent {
  return {
    application: APPLICATION,
    seq,
    type,
    csid: 'C1',
    externalId: 'X1',
    from: 'validating',
    to: 'creating',
    at: 1,
    data: {},
  };
}

const CREATED: CreatedEvent = {
  application: APPLICATION,
  seq: 3,
  type: 'application.created',
  from: 'creating',
  to: 'tracking',
  data: {},
};

/** validate and create whose calls see what the sink held when they ran, and answer `outcome`. */
function steps(sink: RecordedEvents, outcome: CreateOutcome) {
  const calls: Array<{ name: string; logged: number }> = [];
  const inner: Pick<ApplicationActivities, 'validateApplication' | 'createAccount'> = {
    validateApplication: () => {
      calls.push({ name: 'validate', logged: sink.all.length });
      return Promise.resolve({ valid: true });
    },
    createAccount: () => {
      calls.push({ name: 'create', logged: sink.all.length });
      return Promise.resolve(outcome);
    },
  };
  return { calls, inner };
}

/** Runs `fn` as attempt `n` of an activity. */
async function inAttempt<T>(n: number, fn: () => Promise<T>): Promise<T> {
  const env = new MockActivityEnvironment({ attempt: n }, { logger: new DefaultLogger('ERROR') });
  const result: unknown = await env.run(fn);
  return result as T;
}

describe('events riding with a step (activities/event-riders)', function () {
  it('validate and create write the events they carry before they call the brokerage', async function () {
    const sink = new RecordedEvents();
    const { calls, inner } = steps(sink, { created: true, accountId: 'U1', recovered: false });
    const riding = withRidingEvents(inner, sink);
    assert.deepEqual(await riding.validateApplication({ ...REF, events: [event(1)] }), {
      valid: true,
      eventsWritten: true,
    });
    await riding.createAccount({ ...REF, documents: [], events: [event(2)] });
    assert.deepEqual(calls, [
      { name: 'validate', logged: 1 },
      { name: 'create', logged: 2 },
    ]);
    assert.deepEqual(await riding.validateApplication(REF), { valid: true }, 'nothing carried, nothing said');
  });

  it('a create whose carried events are not written leaves its `created` to the workflow', async function () {
    const sink = new RecordedEvents();
    let appends = 0;
    // The carried events' write fails, the next one would not: `created` may still not come before them.
    const flaky: EventSink = {
      append: (events) => (++appends === 1 ? Promise.reject(new Error('connection reset')) : sink.append(events)),
      find: (application, seq) => sink.find(application, seq),
    };
    const riding = withRidingEvents(steps(sink, { created: true, accountId: 'U2', recovered: false }).inner, flaky);
    const created = await inAttempt(1, () =>
      riding.createAccount({ ...REF, documents: [], events: [event(2)], created: CREATED }),
    );
    assert.equal(created.eventsWritten, false);
    assert.ok(created.created);
    assert.equal(created.events, undefined);
    assert.equal(sink.all.length, 0, 'nothing written out of order');
  });

  it('a step goes on while the event log is away, and says its events are not written', async function () {
    const away: EventSink = {
      append: () => Promise.reject(new Error('connection refused')),
      find: () => Promise.reject(new Error('connection refused')),
    };
    const sink = new RecordedEvents();
    const { calls, inner } = steps(sink, { created: true, accountId: 'U1', recovered: false });
    const riding = withRidingEvents(inner, away);
    const validated = await inAttempt(1, () => riding.validateApplication({ ...REF, events: [event(1)] }));
    assert.equal(validated.eventsWritten, false);
    const created = await inAttempt(1, () =>
      riding.createAccount({ ...REF, documents: [], events: [event(2)], created: CREATED }),
    );
    // No `created` written before the events it follows: the workflow writes both alone, in order.
    assert.deepEqual(created, { created: true, accountId: 'U1', recovered: false, eventsWritten: false });
    assert.equal(calls.length, 2, 'both steps called the brokerage');
  });

  it('a create writes its `created` event with the account, and answers it as the log holds it', async function () {
    const sink = new RecordedEvents();
    const { inner } = steps(sink, { created: true, accountId: 'U7', recovered: false });
    const riding = withRidingEvents(inner, sink);
    const created = await inAttempt(1, () => riding.createAccount({ ...REF, documents: [], created: CREATED }));
    assert.ok(created.created);
    const [logged] = created.events ?? [];
    assert.equal(logged?.seq, 3);
    assert.equal(logged?.accountId, 'U7');
    assert.equal(logged?.type, 'application.created');
    assert.deepEqual(sink.typesOf('X1'), ['application.created']);
    assert.deepEqual(await sink.find(APPLICATION, 3), logged);
  });

  it('a retried attempt that finds the `created` event answers that account without calling the brokerage', async function () {
    const sink = new RecordedEvents();
    await sink.append([{ ...event(3, 'application.created'), accountId: 'U7', from: 'creating', to: 'tracking' }]);
    // What a look would answer now (the account not matched yet): never told over the logged account.
    const { calls, inner } = steps(sink, { created: false, unknown: { reason: 'not listed yet' } });
    const riding = withRidingEvents(inner, sink);
    const answer = await inAttempt(2, () => riding.createAccount({ ...REF, documents: [], created: CREATED }));
    assert.ok(answer.created);
    assert.equal(answer.accountId, 'U7');
    assert.equal(answer.recovered, true);
    assert.equal(answer.events?.[0]?.at, 1, "the logged event, with its writer's time");
    assert.deepEqual(calls, []);
  });

  it('a create that makes no account writes no event; a number taken by another event is left to the workflow', async function () {
    const sink = new RecordedEvents();
    const refused = withRidingEvents(steps(sink, { created: false, errors: ['bad'] }).inner, sink);
    const answer = await inAttempt(1, () => refused.createAccount({ ...REF, documents: [], created: CREATED }));
    assert.deepEqual(answer, { created: false, errors: ['bad'] });
    assert.equal(sink.all.length, 0);

    await sink.append([event(3, 'application.blocked')]);
    const made = withRidingEvents(steps(sink, { created: true, accountId: 'U8', recovered: false }).inner, sink);
    const taken = await inAttempt(2, () => made.createAccount({ ...REF, documents: [], created: CREATED }));
    assert.ok(taken.created);
    assert.equal(taken.events, undefined);
    assert.deepEqual(sink.typesOf('X1'), ['application.blocked']);
  });
});
