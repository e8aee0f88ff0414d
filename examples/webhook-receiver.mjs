// A webhook receiver for the engine's lifecycle events, in plain Node: it checks each delivery's
// signature with the `standardwebhooks` package and the endpoint's secret, appends the event to a file
// (one JSON object per line) before it answers, and answers 204. An event delivered twice (the engine
// delivers at least once) carries the same `webhook-id`: a consumer keeps the ids it has processed and
// skips a repeat.
//
//   WEBHOOK_SECRET=whsec_… EVENTS_FILE=events.jsonl PORT=8088 node examples/webhook-receiver.mjs
//
// Register it with `eca webhooks create http://127.0.0.1:8088/` (the secret is printed once).
import { Buffer } from 'node:buffer';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import process from 'node:process';
import { Webhook } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET;
const file = process.env.EVENTS_FILE ?? 'events.jsonl';
const port = Number(process.env.PORT ?? 8088);
if (!secret) {
  process.stderr.write('WEBHOOK_SECRET: give the secret the endpoint was registered with (whsec_…)\n');
  process.exit(2);
}
const webhook = new Webhook(secret);

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      // Checks the signature (any of the signatures sent while a secret is rotated) and the timestamp.
      event = webhook.verify(body, request.headers);
    } catch (error) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end(`not verified: ${error.message}\n`);
      return;
    }
    // Kept before the answer: an event acknowledged is never lost, even if this process dies right after.
    appendFileSync(file, `${JSON.stringify({ webhookId: request.headers['webhook-id'], event })}\n`);
    response.writeHead(204).end();
  });
});
server.listen(port, process.env.HOST ?? '127.0.0.1', () => {
  process.stdout.write(`receiving webhooks on http://${process.env.HOST ?? '127.0.0.1'}:${server.address().port}/\n`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close(() => process.exit(0)));
