/**
 * The politeness phase: N applications started at once (`--polite N`) under the firm's call budget
 * (`--calls-per-second C`, runtime/call-budget.ts), against the simulator refusing calls past C a
 * second. Counted by the simulator (its per-second counts, `/_sim/rates`): the busiest second, the
 * refusals, and how long the applications took; counted by the engine: the calls it put off.
 */
import { startApplication } from '../../client/applications.js';
import { CallPutOff } from '../../domain/brokerage-errors.js';
import { createCallBudget } from '../../runtime/call-budget.js';
import type { SecondCount } from '../../simulator/rate-cap.js';
import { round } from './measure.js';
import { applicationXml, pacing } from './setup.js';
import type { Bench } from './setup.js';

export interface PoliteFigures {
  applications: number;
  callsPerSecondCap: number;
  seconds: number;
  calls: number;
  busiestSecond: number;
  refused: number;
  deferred: number;
  meanCallsPerSecond: number;
}

export async function politePhase(bench: Bench, count: number, cap: number): Promise<PoliteFigures> {
  const { sim } = bench;
  await sim.control('PUT', '/rate-cap', { total: cap });
  let deferred = 0;
  const budget = createCallBudget(bench.database, sim.csid, { perSecond: cap, maxWaitMs: 20_000 });
  pacing.pace = (operation) =>
    budget.pace(operation).catch((error: unknown) => {
      if (error instanceof CallPutOff) deferred++;
      throw error;
    });
  const prefix = `happy-polite-${bench.run}-${count}`;
  const start = Date.now();
  try {
    const handles = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const { handle } = await startApplication(bench.ctx, { applicationXml: applicationXml(`${prefix}-${i}`) });
        return handle;
      }),
    );
    await Promise.all(handles.map((handle) => handle.result()));
  } finally {
    pacing.pace = undefined;
    await sim.control('PUT', '/rate-cap', {});
  }
  const elapsed = (Date.now() - start) / 1000;
  const { seconds } = await sim.control<{ seconds: SecondCount[] }>('GET', '/rates');
  const during = seconds.filter((second) => second.second >= Math.floor(start / 1000));
  const calls = during.reduce((sum, second) => sum + second.total, 0);
  return {
    applications: count,
    callsPerSecondCap: cap,
    seconds: round(elapsed),
    calls,
    busiestSecond: Math.max(0, ...during.map((second) => second.total)),
    refused: during.reduce((sum, second) => sum + second.refused, 0),
    deferred,
    meanCallsPerSecond: round(calls / elapsed),
  };
}
