/**
 * A webhook receiver over real HTTP on 127.0.0.1 for tests: it verifies every delivery with the
 * `standardwebhooks` package and the endpoint's secret, records each one, and answers what the test
 * tells it to (a status per request: 500 for a while, 503 for ever...).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { LifecycleEventRecord } from '../../domain/events.js';

export interface ReceivedDelivery {
  /** The `webhook-id` header. */
  id: string;
  event: LifecycleEventRecord;
  /** Whether `standardwebhooks` accepted the signature (with the secret the test gave). */
  verified: boolean;
  /** The status the receiver answered. */
  status: number;
  /** The request's headers and body as received (to verify with other secrets). */
  headers: Record<string, string>;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  /** Every request, in the order received. */
  deliveries: ReceivedDelivery[];
  /** The deliveries answered 2xx, in order. */
  acknowledged(): ReceivedDelivery[];
  /** The secret deliveries are verified with (set once the endpoint is registered). */
  secret: string;
  /** The status for the next request (its number from 1 among all received); 204 by default. */
  respond: (request: number) => number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    url: '',
    deliveries: [],
    acknowledged: () => receiver.deliveries.filter((delivery) => delivery.status < 300),
    secret: '',
    respond: () => 204,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name, String(value ?? '')]),
      );
      let verified = true;
      try {
        new Webhook(receiver.secret).verify(body, headers);
      } catch {
        verified = false;
      }
      const status = verified ? receiver.respond(receiver.deliveries.length + 1) : 400;
      receiver.deliveries.push({
        id: headers['webhook-id'] ?? '',
        event: JSON.parse(body) as LifecycleEventRecord,
        verified,
        status,
        headers,
        body,
      });
      response.writeHead(status).end();
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const close = receiver.close;
  receiver.close = () => {
    server.closeAllConnections();
    return close();
  };
  return receiver;
}
