/**
 * Events that ride with a step (workflows/application/events.ts): validate and create write the events
 * their input carries before anything else, so that a transition followed by a step costs no activity and
 * no workflow task of its own. A step never fails for its events: with the event log away it goes on and
 * says so (`eventsWritten` false), and the workflow writes them alone.
 *
 * A create also writes the event of its own success (`created` in its input): the application waits after
 * it, so nothing else would carry it. It is written only once the account is known, and a later attempt
 * that finds it in the log answers that account (recovered) without looking again: an attempt that wrote
 * it and died before its answer reached history may not be followed by one that answers otherwise (an
 * account not matched yet), which would make the log tell an event that history never records.
 */
import { Context, log } from '@temporalio/activity';
import type { NewEvent } from '../domain/events.js';
import type { ApplicationActivities, CreateOutcome, RideReport } from '../workflows/application/activities.js';
import type { EventSink } from './events.js';

type RidingSteps = Pick<ApplicationActivities, 'validateApplication' | 'createAccount'>;

/** Writes the events a step carries; answers whether they are in the log. */
async function writeCarried(sink: EventSink, events: NewEvent[] | undefined): Promise<RideReport> {
  if (!events?.length) return {};
  try {
    await sink.append(events);
    return { eventsWritten: true };
  } catch (error) {
    log.warn('events not written with the step; the workflow writes them alone', {
      error: (error as Error).message,
    });
    return { eventsWritten: false };
  }
}

/** validate and create, writing the events they carry first, and create its `created` event. */
export function withRidingEvents<T extends RidingSteps>(steps: T, sink: EventSink): T {
  return {
    ...steps,
    async validateApplication(input) {
      const report = await writeCarried(sink, input.events);
      return { ...(await steps.validateApplication(input)), ...report };
    },

    async createAccount(input) {
      const report = await writeCarried(sink, input.events);
      const { created } = input;
      if (!created) return { ...(await steps.createAccount(input)), ...report };
      const context = Context.current();
      // Only a retried attempt can follow one that wrote the event (a completed one answered it).
      const kept = context.info.attempt > 1 ? await sink.find(created.application, created.seq) : undefined;
      if (kept?.accountId !== undefined && kept.type === 'application.created') {
        // An earlier attempt made or found the account and told it: that account, whatever a look would find now.
        return { created: true, accountId: kept.accountId, recovered: true, events: [kept], ...report };
      }
      const outcome: CreateOutcome = await steps.createAccount(input);
      // The number is taken by another event (the workflow makes this one itself), the attempt was given up (its
      // time is out, or the worker is shutting down), or the events before it are not in the log (it may not
      // come before them): the workflow writes it alone.
      if (!outcome.created || kept || context.cancellationSignal.aborted || report.eventsWritten === false) {
        return { ...outcome, ...report };
      }
      const event: NewEvent = {
        ...created,
        csid: input.csid,
        externalId: input.externalId,
        accountId: outcome.accountId,
        at: Date.now(),
      };
      try {
        await sink.append([event]);
      } catch (error) {
        // The workflow makes the event itself and writes it alone.
        log.warn('created event not written with the step', { error: (error as Error).message });
        return { ...outcome, ...report };
      }
      // The event as the log holds it: a concurrent attempt's, if it wrote first.
      const logged = (await sink.find(created.application, created.seq).catch(() => undefined)) ?? event;
      return { ...outcome, events: [logged], ...report };
    },
  };
}
