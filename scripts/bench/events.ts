/**
 * The events phase: N happy applications start → Open while a webhook endpoint of the firm receives
 * their events (a receiver in this process, over loopback HTTP, verifying every delivery with
 * `standardwebhooks`). Delay = receipt at the receiver − the event's time (the transition in the
 * workflow's history); also transition → row in the event log. Every event of the phase must arrive.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startApplication } from '../../client/applications.js';
import { startWebhookDelivery, stopWebhookDelivery } from '../../client/webhooks.js';
import type { LifecycleEventRecord } from '../../domain/events.js';
import { EventLog } from '../../runtime/events.js';
import { WebhookEndpoints } from '../../runtime/webhooks.js';
import { percentile, pool, round } from './measure.js';
import { CONCURRENCY } from './options.js';
import { applicationXml } from './setup.js';
import type { Bench } from './setup.js';

interface Receiver {
  url: string;
  secret: string;
  /** First receipt (ms) and the event, by event id. */
  received: Map<string, { at: number; event: LifecycleEventRecord }>;
  deliveries: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    secret: '',
    received: new Map(),
    deliveries: 0,
    close: () => Promise.resolve(),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const event = new Webhook(receiver.secret).verify(body, request.headers as Record<string, string>);
        receiver.deliveries++;
        const record = event as LifecycleEventRecord;
        if (!receiver.received.has(record.id)) receiver.received.set(record.id, { at, event: record });
        response.writeHead(204).end();
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

export async function eventsPhase(bench: Bench, count: number) {
  const { sim, database, keys } = bench;
  const receiver = await startReceiver();
  const log = new EventLog(database);
  const endpoints = new WebhookEndpoints(database, keys);
  const { endpoint, secret } = await endpoints.register({ csid: sim.csid, url: receiver.url });
  receiver.secret = secret;
  const ctx = { client: bench.client, taskQueue: bench.ctx.taskQueue };
  await startWebhookDelivery(ctx, { csid: sim.csid, endpointId: endpoint.id });
  const prefix = `happy-events-${bench.run}-${count}`;
  const start = Date.now();
  try {
    await pool(count, CONCURRENCY, async (i) => {
      const { handle } = await startApplication(bench.ctx, { applicationXml: applicationXml(`${prefix}-${i}`) });
      await handle.result();
    });
    const opened = Date.now();
    // Every event of the phase is in the log once its applications are open: wait until each has arrived.
    const written = await database.query<{ id: string; at: Date; recorded_at: Date }>(
      `SELECT id, occurred_at AS at, recorded_at FROM events WHERE csid = $1 AND external_id LIKE $2`,
      [sim.csid, `${prefix}-%`],
    );
    while (written.some((row) => !receiver.received.has(row.id))) {
      if (Date.now() - opened > 120_000)
        throw new Error(`events phase: ${written.length - receiver.received.size} events never arrived`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const delays = written.map((row) => receiver.received.get(row.id)!.at - row.at.getTime());
    const logDelays = written.map((row) => row.recorded_at.getTime() - row.at.getTime());
    return {
      applications: count,
      events: written.length,
      eventsPerApplication: round(written.length / count, 2),
      deliveries: receiver.deliveries,
      seconds: round((Date.now() - start) / 1000),
      transitionToWebhookP50Ms: percentile(delays, 50),
      transitionToWebhookP99Ms: percentile(delays, 99),
      transitionToLogP50Ms: percentile(logDelays, 50),
      transitionToLogP99Ms: percentile(logDelays, 99),
      backlogAfter: await log.countAfter(sim.csid, (await endpoints.get(sim.csid, endpoint.id))!.cursor),
    };
  } finally {
    await endpoints.delete(sim.csid, endpoint.id);
    await stopWebhookDelivery(ctx, endpoint.id).catch(() => false);
    await receiver.close();
  }
}

export type EventsFigures = Awaited<ReturnType<typeof eventsPhase>>;
