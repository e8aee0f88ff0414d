/**
 * The events side of a fault case: the onboarding API as a process on the workers' database, a
 * webhook receiver as a process (examples/webhook-receiver.mjs: it verifies each delivery with
 * `standardwebhooks` and writes it to its file before answering), and an SSE reader in the test,
 * each of which a case kills or restarts. The checks read the receiver's file and the reader's own
 * records, never the engine's: every application's events arrive, numbered 1..n without a gap, in
 * order, their states the workflow's own transitions; a repeat carries the same webhook-id and body.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { followEvents } from '../../client/event-stream.js';
import type { FollowedEvent } from '../../client/event-stream.js';
import { createApiKey } from '../../runtime/api-keys.js';
import { openDatabase } from '../../runtime/database/index.js';
import { databaseBeside, freePort, start, startApiProcess } from '../../scripts/processes.js';
import type { Child } from '../../scripts/processes.js';
import type { LifecycleEventRecord } from '../../domain/events.js';
import type { World } from './world.js';

const RECEIVER = 'examples/webhook-receiver.mjs';

export interface Delivery {
  webhookId: string;
  event: LifecycleEventRecord;
}

export class EventsWorld {
  api!: { child: Child; url: string };
  receiver!: Child;
  apiKey!: string;
  endpointId!: string;
  private secret!: string;
  private apiPort!: number;
  private receiverPort!: number;
  readonly sse: FollowedEvent[] = [];
  sseReconnects = 0;
  private readonly stopReading = new AbortController();
  private reading: Promise<void> | undefined;
  readonly eventsFile: string;

  constructor(
    private readonly world: World,
    private readonly taskQueue: string,
  ) {
    this.eventsFile = join(world.dir, `webhook-events-${taskQueue}.jsonl`);
  }

  /** The API, an API key of the firm, the endpoint registered through the API, its receiver, the SSE reader. */
  async start(): Promise<void> {
    this.apiPort = await freePort();
    this.receiverPort = await freePort();
    await this.startApi();
    const db = await openDatabase(databaseBeside(this.world.documentStore));
    try {
      this.apiKey = (await createApiKey(db, { csid: this.world.sim.csid, role: 'staff', name: 'fault suite' })).key;
    } finally {
      await db.close();
    }
    const created = await this.call<{ endpoint: { id: string }; secret: string }>('POST', '/v1/webhooks', {
      url: `http://127.0.0.1:${this.receiverPort}/hooks`,
      description: 'fault suite receiver',
    });
    this.endpointId = created.endpoint.id;
    this.secret = created.secret;
    await this.startReceiver();
    this.reading = (async () => {
      for await (const followed of followEvents({
        url: this.api.url,
        apiKey: this.apiKey,
        after: 'start',
        signal: this.stopReading.signal,
        maxBackoffMs: 1_000,
        onReconnect: () => this.sseReconnects++,
      })) {
        this.sse.push(followed);
      }
    })();
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.api.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private async startApi(): Promise<void> {
    this.api = await startApiProcess('onboarding api', {
      temporalAddress: this.world.address,
      taskQueue: this.taskQueue,
      simulator: this.world.sim,
      documentStore: this.world.documentStore,
      codecKeys: this.world.codecKeys,
      env: { ECA_API_PORT: String(this.apiPort), ECA_LOG_LEVEL: 'WARN' },
    });
  }

  async startReceiver(): Promise<void> {
    this.receiver = start('webhook receiver', process.execPath, [RECEIVER], {
      WEBHOOK_SECRET: this.secret,
      EVENTS_FILE: this.eventsFile,
      PORT: String(this.receiverPort),
    });
    await this.receiver.waitFor(/receiving webhooks on/, 30_000);
  }

  /** The receiver dies (SIGKILL) and comes back on its port a few seconds later; deliveries meanwhile fail. */
  async killReceiver(downMs = 3_000): Promise<void> {
    this.world.checkGone(await this.receiver.stop('SIGKILL'), 'webhook receiver SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await this.startReceiver();
  }

  /** The API stops (SIGTERM: its streams end) and starts again on its port; the SSE reader reconnects. */
  async restartApi(): Promise<void> {
    this.world.checkGone(await this.api.child.stop('SIGTERM'), 'onboarding api restart');
    await this.startApi();
  }

  /** What the receiver wrote, in the order it acknowledged it. */
  async deliveries(): Promise<Delivery[]> {
    if (!existsSync(this.eventsFile)) return [];
    const text = await readFile(this.eventsFile, 'utf8');
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Delivery);
  }

  /** Waits (bounded) until the endpoint has nothing left to deliver and the SSE reader has what the receiver has. */
  async settle(timeoutMs = 120_000): Promise<void> {
    const giveUpAt = Date.now() + timeoutMs;
    for (;;) {
      const endpoint = await this.call<{ backlog: number; lastError?: string }>(
        'GET',
        `/v1/webhooks/${this.endpointId}`,
      ).catch(() => undefined);
      const received = new Set((await this.deliveries()).map((delivery) => delivery.webhookId));
      const streamed = new Set(this.sse.map((followed) => followed.event.id));
      if (endpoint?.backlog === 0 && received.size > 0 && [...received].every((id) => streamed.has(id))) return;
      if (Date.now() > giveUpAt) {
        assert.fail(
          `events not settled: backlog ${endpoint?.backlog} (${endpoint?.lastError ?? 'no error'}), ` +
            `${received.size} received, ${streamed.size} streamed`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** What the log, the receiver and the SSE reader hold of one application, for a failed check. */
  async diagnose(externalId: string): Promise<string> {
    const db = await openDatabase(databaseBeside(this.world.documentStore));
    try {
      const rows = await db.query<{ seq: number; tx: string; position: string; type: string; recorded_at: Date }>(
        'SELECT seq, tx::text AS tx, position, type, recorded_at FROM events WHERE external_id = $1 ORDER BY events.seq',
        [externalId],
      );
      const [endpoint] = await db.query<{ cursor_tx: string; cursor_position: string }>(
        'SELECT cursor_tx::text AS cursor_tx, cursor_position FROM webhook_endpoints WHERE id = $1',
        [this.endpointId],
      );
      const received = (await this.deliveries()).filter((delivery) => delivery.event.externalId === externalId);
      const streamed = this.sse.filter((followed) => followed.event.externalId === externalId);
      return [
        `log: ${rows.map((row) => `${row.seq} ${row.type} @${row.tx}-${row.position} ${row.recorded_at.toISOString()}`).join('; ')}`,
        `endpoint cursor: ${endpoint?.cursor_tx}-${endpoint?.cursor_position}`,
        `received: ${received.map((delivery) => delivery.event.seq).join(' ')}`,
        `streamed: ${streamed.map((followed) => `${followed.event.seq}@${followed.cursor}`).join(' ')}`,
      ].join('\n');
    } finally {
      await db.close();
    }
  }

  async close(): Promise<void> {
    this.stopReading.abort();
    await this.reading?.catch(() => undefined);
    await this.call('DELETE', `/v1/webhooks/${this.endpointId}`).catch(() => undefined);
    this.world.checkGone(await this.receiver?.stop('SIGTERM'), 'webhook receiver stop');
    this.world.checkGone(await this.api?.child.stop('SIGTERM'), 'onboarding api stop');
  }
}

export interface EventCheck {
  /** Events received (unique ids), by the receiver and by the SSE reader. */
  received: number;
  streamed: number;
  /** Deliveries of an id received before (at least once: after a kill, the one in flight again). */
  repeats: number;
}

/**
 * One consumer's records of one application: its events numbered 1..n with no gap and no reordering
 * (repeats aside), a repeat identical to the first, and the states entered exactly the workflow's
 * transitions (`states`), ending in the application's final state.
 */
export function checkApplication(
  who: string,
  externalId: string,
  records: Array<{ id: string; event: LifecycleEventRecord }>,
  states: string[],
  final: string,
): { unique: number; repeats: number } {
  const first = new Map<string, LifecycleEventRecord>();
  let repeats = 0;
  let lastSeq = 0;
  for (const { id, event } of records) {
    assert.equal(id, event.id, `${who}: ${externalId}: the webhook-id is the event's id`);
    const seen = first.get(id);
    if (seen) {
      repeats++;
      assert.deepEqual(event, seen, `${who}: ${externalId}: a repeat of ${id} differs from its first delivery`);
      continue;
    }
    first.set(id, event);
    assert.equal(
      event.seq,
      lastSeq + 1,
      `${who}: ${externalId}: event ${event.seq} after ${lastSeq} (lost or out of order)`,
    );
    lastSeq = event.seq;
  }
  const events = [...first.values()];
  const entered = events.filter((event) => event.from !== event.to || event.seq === 1).map((event) => event.to);
  assert.deepEqual(entered, states, `${who}: ${externalId}: the states told are not the workflow's transitions`);
  assert.equal(events.at(-1)?.to, final, `${who}: ${externalId}: the last event is not the final state`);
  return { unique: events.length, repeats };
}
