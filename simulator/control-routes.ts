/** The control API over HTTP, under `/_sim/`. Not counted and never faulted. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { ControlError, type SimulatorControl } from './control.js';
import { FAULT_KINDS } from './faults.js';

const durationBody = z.object({
  ms: z.number().nonnegative().optional(),
  seconds: z.number().nonnegative().optional(),
  minutes: z.number().nonnegative().optional(),
  hours: z.number().nonnegative().optional(),
  days: z.number().nonnegative().optional(),
  businessDays: z.number().int().nonnegative().optional(),
});

const faultBody = z.object({
  operation: z.string().min(1),
  kind: z.enum(FAULT_KINDS),
  rate: z.number().min(0).max(1).optional(),
  count: z.number().int().positive().optional(),
  ms: z.number().nonnegative().optional(),
});

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ControlError(400, `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
}

async function answer(reply: FastifyReply, work: () => unknown): Promise<FastifyReply> {
  try {
    const result = await work();
    return reply.code(200).send(result ?? { ok: true });
  } catch (error) {
    if (error instanceof ControlError) return reply.code(error.status).send({ error: error.message });
    throw error;
  }
}

export function registerControlRoutes(
  app: FastifyInstance,
  control: SimulatorControl,
  demo: () => { csid: string },
): void {
  scenarioRoutes(app, control, demo);
  clockAndFaultRoutes(app, control);
  recordRoutes(app, control);
  firmAndAccountRoutes(app, control, demo);
}

/** State, the scenario of each external id, and what create does with one sent again. */
function scenarioRoutes(app: FastifyInstance, control: SimulatorControl, demo: () => { csid: string }): void {
  app.get('/_sim/state', (_req, reply) =>
    answer(reply, () => ({ clock: control.clock(), scenarios: control.scenarios(), demoCsid: demo().csid })),
  );

  app.get('/_sim/scenarios', (_req, reply) => answer(reply, () => ({ scenarios: control.scenarios() })));
  app.put<{ Params: { externalId: string } }>('/_sim/scenarios/:externalId', (req, reply) =>
    answer(reply, () => {
      const { scenario } = parse(z.object({ scenario: z.string() }), req.body);
      control.setScenario(req.params.externalId, scenario);
      return { externalId: req.params.externalId, scenario };
    }),
  );
  app.get<{ Params: { externalId: string } }>('/_sim/scenarios/:externalId', (req, reply) =>
    answer(reply, () => ({ externalId: req.params.externalId, scenario: control.scenarioOf(req.params.externalId) })),
  );
  app.get('/_sim/repeated-external-id', (_req, reply) =>
    answer(reply, () => ({ answer: control.repeatedExternalId() })),
  );
  app.put('/_sim/repeated-external-id', (req, reply) =>
    answer(reply, () => {
      const { answer: setting } = parse(z.object({ answer: z.string() }), req.body);
      control.setRepeatedExternalId(setting);
      return { answer: setting };
    }),
  );
  app.get('/_sim/unpromised', (_req, reply) => answer(reply, () => ({ on: control.unpromised() })));
  app.put('/_sim/unpromised', (req, reply) =>
    answer(reply, () => ({ on: control.setUnpromised(parse(z.record(z.string(), z.boolean()), req.body)) })),
  );
  app.put('/_sim/default-scenario', (req, reply) =>
    answer(reply, () => {
      const { scenario } = parse(z.object({ scenario: z.string() }), req.body);
      control.setDefaultScenario(scenario);
      return { scenario };
    }),
  );
}

/** Simulated time and injected faults. */
function clockAndFaultRoutes(app: FastifyInstance, control: SimulatorControl): void {
  app.get('/_sim/clock', (_req, reply) => answer(reply, () => control.clock()));
  app.post('/_sim/clock/advance', (req, reply) =>
    answer(reply, () => control.advanceClock(parse(durationBody, req.body))),
  );
  app.put('/_sim/clock/scale', (req, reply) =>
    answer(reply, () =>
      control.setTimeScale(parse(z.object({ timeScale: z.number().positive() }), req.body).timeScale),
    ),
  );

  app.get('/_sim/faults', (_req, reply) => answer(reply, () => ({ faults: control.faults() })));
  app.post('/_sim/faults', (req, reply) => answer(reply, () => control.addFault(parse(faultBody, req.body))));
  app.delete('/_sim/faults', (_req, reply) => answer(reply, () => control.clearFaults()));
  app.delete<{ Params: { id: string } }>('/_sim/faults/:id', (req, reply) =>
    answer(reply, () => {
      if (!control.removeFault(Number(req.params.id))) throw new ControlError(404, 'no such fault');
    }),
  );
}

/** Call counts, records, reset and flush. */
function recordRoutes(app: FastifyInstance, control: SimulatorControl): void {
  app.get('/_sim/calls', (_req, reply) => answer(reply, () => ({ calls: control.calls() })));
  app.delete('/_sim/calls', (_req, reply) => answer(reply, () => control.resetCalls()));
  app.get('/_sim/rates', (_req, reply) => answer(reply, () => ({ seconds: control.callCounts.rates.counts() })));
  app.put('/_sim/rate-cap', (req, reply) =>
    answer(reply, () => {
      control.callCounts.rates.set(
        parse(
          z
            .object({
              total: z.number().int().positive().optional(),
              perOperation: z.record(z.string().min(1), z.number().int().positive()).optional(),
              perFirm: z.number().int().positive().optional(),
            })
            .strict(),
          req.body,
        ),
      );
      return control.callCounts.rates.settings();
    }),
  );
  app.get<{ Querystring: { csid?: string; externalId?: string } }>('/_sim/records', (req, reply) =>
    answer(reply, () =>
      control.records(
        parse(z.object({ csid: z.string().min(1).optional(), externalId: z.string().min(1).optional() }), req.query),
      ),
    ),
  );
  app.post('/_sim/reset', (_req, reply) => answer(reply, () => control.reset()));
  app.post('/_sim/flush', (_req, reply) => answer(reply, () => control.flush()));
}

/** Firms, accounts and seeding. */
function firmAndAccountRoutes(app: FastifyInstance, control: SimulatorControl, demo: () => { csid: string }): void {
  app.post('/_sim/firms', (req, reply) =>
    answer(reply, () =>
      control.registerFirm(
        parse(
          z.object({
            name: z.string(),
            firmType: z.enum(['advisor', 'fully-disclosed', 'non-disclosed']).optional(),
            csid: z.string().min(1).optional(),
          }),
          req.body,
        ),
      ),
    ),
  );
  app.put<{ Params: { csid: string } }>('/_sim/firms/:csid/public-key', (req, reply) =>
    answer(reply, () =>
      control.setFirmPublicKey(req.params.csid, parse(z.object({ publicKey: z.string() }), req.body).publicKey),
    ),
  );
  app.get('/_sim/listing-lag', (_req, reply) => answer(reply, () => control.listingLag()));
  app.put('/_sim/listing-lag', (req, reply) => answer(reply, () => control.setListingLag(req.body)));
  app.put<{ Params: { csid: string } }>('/_sim/firms/:csid/whitelist', (req, reply) =>
    answer(reply, () =>
      control.setWhitelist(req.params.csid, parse(z.object({ ips: z.array(z.string()) }), req.body).ips),
    ),
  );

  app.get<{ Params: { accountId: string } }>('/_sim/accounts/:accountId', (req, reply) =>
    answer(reply, () => {
      const account = control.account(req.params.accountId);
      if (!account) throw new ControlError(404, 'unknown account');
      return account;
    }),
  );
  app.get<{ Params: { externalId: string } }>('/_sim/external-ids/:externalId', (req, reply) =>
    answer(reply, () => {
      const account = control.accountByExternalId(req.params.externalId);
      if (!account) throw new ControlError(404, 'no account for this external id');
      return account;
    }),
  );
  app.post<{ Params: { accountId: string } }>('/_sim/accounts/:accountId/complete-task', (req, reply) =>
    answer(reply, () => {
      const { formNumber } = parse(z.object({ formNumber: z.string().optional() }), req.body);
      return { completed: control.completeTask(req.params.accountId, formNumber) };
    }),
  );
  app.post<{ Params: { accountId: string } }>('/_sim/accounts/:accountId/close', (req, reply) =>
    answer(reply, () => control.closeAccount(req.params.accountId)),
  );
  app.post('/_sim/seed', (req, reply) =>
    answer(reply, () => {
      const input = parse(
        z.object({ count: z.number().int().positive(), csid: z.string().optional(), prefix: z.string().optional() }),
        req.body,
      );
      const accountIds = control.seedAccounts({
        count: input.count,
        csid: input.csid ?? demo().csid,
        prefix: input.prefix,
      });
      return { accountIds };
    }),
  );
}
