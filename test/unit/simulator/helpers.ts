/** Black-box helpers: a simulator per suite, raw JSON calls, and the firm side of the envelope. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { buildArchive, type ArchiveAttachment } from '../../../eca/archive.js';
import { loadPrivateKey, loadPublicKey, open, seal, type EnvelopeKeys } from '../../../eca/crypto.js';
import { APPLICATION_XML_EXAMPLE, parseCreateResponseXml } from '../../../eca/xml.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../../simulator/server.js';

/** Wednesday 8 January 2025, 10:00 UTC: business-day arithmetic in the tests is then easy to follow. */
export const WEDNESDAY_10H = Date.UTC(2025, 0, 8, 10, 0, 0);

export interface Firm {
  csid: string;
  keys: EnvelopeKeys;
}

export async function firmKeys(firmPrivateKey: string, brokeragePublicKey: string): Promise<EnvelopeKeys> {
  return {
    ownPrivateKey: await loadPrivateKey(firmPrivateKey),
    peerPublicKey: await loadPublicKey(brokeragePublicKey),
  };
}

export async function start(options: SimulatorOptions = {}): Promise<{ sim: RunningSimulator; firm: Firm }> {
  const sim = await startSimulator({ startTime: WEDNESDAY_10H, ...options });
  const keys = await firmKeys(sim.keys.firmPrivateKey, sim.keys.brokeragePublicKey);
  return { sim, firm: { csid: sim.csid, keys } };
}

/** A simulator with two accounts made through `create` (ids and user names), for suites that read or change them. */
export async function startWithAccounts(): Promise<{
  sim: RunningSimulator;
  firm: Firm;
  accounts: string[];
  userNames: string[];
}> {
  const { sim, firm } = await start();
  const created = [await createAccount(sim, firm, 'FZ-1'), await createAccount(sim, firm, 'FZ-2')];
  return {
    sim,
    firm,
    accounts: created.map((made) => made.accountId),
    userNames: created.map((made) => made.userName),
  };
}

/** The simulator's CLI (`simulator/main.ts`) as a process, with the first line it prints (where it listens). */
export async function startCli(args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; line: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'simulator/main.ts', '--port', '0', ...args]);
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve(out.slice(0, newline));
    });
    child.once('exit', (code) => reject(new Error(`exited with ${String(code)}`)));
  });
  return { child, line };
}

export interface JsonResponse {
  status: number;
  // Tests look into the wire shape freely; the simulator's types are not what is under test.
  body: Record<string, unknown>;
  text: string;
}

export async function post(base: string, path: string, body: unknown): Promise<JsonResponse> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Left empty: fault tests look at the text.
  }
  return { status: response.status, body: parsed, text };
}

export function op(sim: RunningSimulator, name: string, body: unknown): Promise<JsonResponse> {
  const path = name === 'sso/create' ? '/ws/sso/create' : `/ws/eca/${name}`;
  return post(sim.url, path, body);
}

export async function control(sim: RunningSimulator, method: string, path: string, body?: unknown) {
  const response = await fetch(`${sim.controlUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function filePayload(
  keys: EnvelopeKeys,
  xml: { fileName: string; content: string },
  attachments: ArchiveAttachment[] = [],
): Promise<string> {
  const { zip } = await buildArchive({ xml, attachments });
  return seal(zip, keys);
}

export async function openText(keys: EnvelopeKeys, data: unknown): Promise<string> {
  if (typeof data !== 'string') throw new Error('expected base64 file data');
  return new TextDecoder().decode(await open(data, keys));
}

export function applicationXml(externalId: string, overrides: { prefix?: string } = {}): string {
  return APPLICATION_XML_EXAMPLE.replace('external_id="EXT-1"', `external_id="${externalId}"`).replace(
    'prefix="jdoexa"',
    `prefix="${overrides.prefix ?? 'jdoexa'}"`,
  );
}

/** Creates one application through create and returns its account id and user name from the response file. */
export async function createAccount(
  sim: RunningSimulator,
  firm: Firm,
  externalId: string,
): Promise<{
  accountId: string;
  userName: string;
  temporaryPassword: string;
  responseXml: string;
  body: Record<string, unknown>;
}> {
  const payload = await filePayload(firm.keys, { fileName: `${externalId}.xml`, content: applicationXml(externalId) });
  const { body } = await op(sim, 'create', { CSID: firm.csid, payload });
  if (body.isProcessed !== true) throw new Error(`create not processed: ${String(body.error)}`);
  const fileData = body.fileData as { data: string };
  const responseXml = await openText(firm.keys, fileData.data);
  const [application] = parseCreateResponseXml(responseXml).applications;
  const accountId = application?.accountId;
  const userName = application?.userName;
  const temporaryPassword = application?.temporaryPassword?.reveal();
  if (!accountId || !userName || !temporaryPassword) throw new Error('no account in the response file');
  return { accountId, userName, temporaryPassword, responseXml, body };
}

/**
 * Opens `url` (a portal page, a redirect followed once) as a browser would and, on the portal's first-access step
 * (spec, Authentication 7), enters `temporaryPassword` and the permanent `password`: the answer to that form
 * (303 to the page asked for), or the page itself when no step was asked.
 */
export async function passFirstAccess(
  sim: RunningSimulator,
  url: string,
  temporaryPassword: string,
  password = 'Permanent#2025',
): Promise<Response> {
  let page = await fetch(url, { redirect: 'manual' });
  const location = page.headers.get('location');
  if (page.status === 302 && location) page = await fetch(`${sim.url}${location}`, { redirect: 'manual' });
  const html = await page.text();
  if (!html.includes('data-landing="first-access"')) return new Response(html, { status: page.status });
  return postPortalForm(sim, html, { temporaryPassword, newPassword: password });
}

/** Posts the form of a portal page (its hidden SID and next fields, plus `fields`) as a browser would. */
export function postPortalForm(sim: RunningSimulator, html: string, fields: Record<string, string>): Promise<Response> {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
  if (!action) throw new Error('the page holds no form');
  const entities: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };
  const unescape = (text: string) =>
    text.replace(/&(amp|quot|apos|lt|gt);/g, (_, name: string) => entities[name] ?? '');
  return fetch(`${sim.url}${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ SID: unescape(hidden('SID')), next: unescape(hidden('next')), ...fields }),
    redirect: 'manual',
  });
}

export async function accountStatus(sim: RunningSimulator, csid: string, accountId: string) {
  const { body } = await op(sim, 'getAccountStatus', { CSID: csid, accountIds: [accountId] });
  const [entry] = body.status as Array<Record<string, unknown>>;
  return entry ?? {};
}

export function pdf(text: string): Uint8Array {
  return new TextEncoder().encode(`%PDF-1.4\n% ${text}\n%%EOF\n`);
}
