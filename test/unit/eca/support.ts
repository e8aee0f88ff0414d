/** A local HTTP stand-in for the brokerage, scripted per test: each path answers with a handler's reply. */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  path: string;
  contentType: string | undefined;
  body: unknown;
}

export interface Reply {
  status?: number;
  /** An object is sent as JSON; a string as is. */
  body?: unknown;
  contentType?: string;
  delayMs?: number;
}

export type Handler = (body: unknown, request: Recorded) => Reply | Promise<Reply>;

export interface ScriptedServer {
  url: string;
  requests: Recorded[];
  on(path: string, handler: Handler | Reply): void;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startServer(): Promise<ScriptedServer> {
  const handlers = new Map<string, Handler>();
  const requests: Recorded[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const text = await readBody(request);
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Kept as text.
      }
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const recorded: Recorded = { path, contentType: request.headers['content-type'], body };
      requests.push(recorded);
      const handler = handlers.get(path);
      const reply: Reply = handler ? await handler(body, recorded) : { status: 404, body: { error: 'no handler' } };
      if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      if (response.destroyed) return;
      const payload = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
      response.writeHead(reply.status ?? 200, {
        'content-type': reply.contentType ?? (typeof reply.body === 'string' ? 'text/plain' : 'application/json'),
      });
      response.end(payload);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    on(path, handler) {
      handlers.set(path, typeof handler === 'function' ? handler : () => handler);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
