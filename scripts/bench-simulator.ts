/**
 * Benchmark of the simulator under the engine's heaviest read: getAccountStatus with 100-account
 * batches while 10,000 accounts are loaded. The simulator runs as its own process (as in a load
 * test), this process is the client. Prints calls per second and latency percentiles.
 *
 *   npm run bench:simulator -- [--accounts 10000] [--batch 100] [--seconds 10] [--concurrency 16]
 */
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { SimulatorProcess } from './processes.js';

const { values } = parseArgs({
  options: {
    accounts: { type: 'string', default: '10000' },
    batch: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '16' },
  },
});
const ACCOUNTS = Number(values.accounts);
const BATCH = Number(values.batch);
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function postJson(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function main(): Promise<void> {
  const sim = new SimulatorProcess({ timeScale: 1 });
  await sim.start();
  try {
    const ids: string[] = [];
    const prefixes = ['happy-bench-', 'docs-required-bench-', 'portal-task-bench-', 'doc-rejected-bench-'];
    for (const [index, prefix] of prefixes.entries()) {
      const count = Math.floor(ACCOUNTS / prefixes.length) + (index < ACCOUNTS % prefixes.length ? 1 : 0);
      const seeded = await postJson(`${sim.url}/_sim/seed`, JSON.stringify({ count, prefix }));
      ids.push(...(JSON.parse(seeded.text) as { accountIds: string[] }).accountIds);
    }
    // Let a simulated day pass so that reads also settle state changes, as under a real poll.
    await postJson(`${sim.url}/_sim/clock/advance`, JSON.stringify({ hours: 7 }));
    const bodies = Array.from({ length: 64 }, (_, n) => {
      const start = (n * 997) % Math.max(1, ids.length - BATCH);
      return JSON.stringify({ CSID: sim.csid, accountIds: ids.slice(start, start + BATCH) });
    });
    const url = `${sim.url}/ws/eca/getAccountStatus`;
    // Warm-up: JIT and connection pool.
    for (let n = 0; n < 200; n += 1) await postJson(url, bodies[n % bodies.length] ?? '{}');

    const latencies: number[] = [];
    let errors = 0;
    let calls = 0;
    let responseBytes = 0;
    const endAt = performance.now() + SECONDS * 1000;
    const worker = async (offset: number) => {
      let n = offset;
      while (performance.now() < endAt) {
        const began = performance.now();
        const response = await postJson(url, bodies[n % bodies.length] ?? '{}');
        latencies.push(performance.now() - began);
        responseBytes += response.text.length;
        if (response.status !== 200) errors += 1;
        calls += 1;
        n += 1;
      }
    };
    const began = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => worker(i * 7)));
    const elapsed = (performance.now() - began) / 1000;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) =>
      (latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0).toFixed(2);
    process.stdout.write(
      `getAccountStatus: ${(calls / elapsed).toFixed(0)} calls/s ` +
        `(${BATCH}-account batches, ${ids.length} accounts loaded, concurrency ${CONCURRENCY}, ${elapsed.toFixed(1)} s, ` +
        `${errors} errors, ${(responseBytes / Math.max(1, calls)).toFixed(0)} bytes/response, ` +
        `p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms)\n`,
    );
  } finally {
    await sim.stop();
    agent.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : 'unknown'}\n`);
  process.exit(1);
});
