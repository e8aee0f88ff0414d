/**
 * What a caller gives the webhook registry (runtime/webhooks.ts), checked, and the typed errors it
 * answers with: the API and the CLI map them to their own answers (400 naming the field, 404).
 */
import { formatCursor, parseCursor } from './events.js';
import type { EventCursor } from './events.js';

export type WebhookInputField = 'csid' | 'url' | 'description' | 'cursor' | 'keepPreviousForMs';

/** An input the registry cannot take; `field` names it. */
export class WebhookInputError extends Error {
  override readonly name = 'WebhookInputError';
  constructor(
    readonly field: WebhookInputField,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

/** No endpoint of that id for that firm (or it was deleted, for anything but reading it). */
export class WebhookNotFoundError extends Error {
  override readonly name = 'WebhookNotFoundError';
  constructor(
    readonly csid: string,
    readonly endpointId: string,
    deleted = false,
  ) {
    super(`webhook endpoint ${endpointId} of firm ${csid} ${deleted ? 'is deleted' : 'does not exist'}`);
  }
}

/** A replay's cursor lies after the endpoint's own: it would skip events (the endpoint's state, not the input's form). */
export class WebhookCursorAheadError extends WebhookInputError {}

const MAX_URL_LENGTH = 2048;
const MAX_DESCRIPTION_LENGTH = 200;
/** A rotated-out secret signs at most this long after the rotation. */
export const MAX_KEEP_PREVIOUS_MS = 30 * 24 * 60 * 60 * 1000;

export function checkCsid(csid: string): string {
  const trimmed = csid.trim();
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(trimmed)) {
    throw new WebhookInputError('csid', `"${trimmed}" is not a CSID (1 to 64 letters, digits, '.', '_' or '-')`);
  }
  return trimmed;
}

/**
 * What is wrong with a URL the engine will send to and someone else named (a webhook receiver's, a firm's brokerage
 * URLs), if anything: absolute, http or https, at most 2048 characters, no user name or password, and a host
 * `refusedHost` allows. `example` is shown for a text that is no URL, `credentials` says why none may be carried,
 * `what` is what the host may never be.
 */
export function outboundUrlProblem(
  url: string,
  words: { example: string; credentials: string; what: string },
): string | undefined {
  if (url.length === 0 || url.length > MAX_URL_LENGTH) {
    return `give an absolute http or https URL of up to ${MAX_URL_LENGTH} characters`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `is not an absolute URL (e.g. ${words.example})`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `scheme ${parsed.protocol.replace(/:$/, '')} is not http or https`;
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return `must not carry a user name or password: ${words.credentials}`;
  }
  const refused = refusedHost(parsed.hostname);
  return refused ? `${parsed.hostname} is ${refused}: never ${words.what}` : undefined;
}

/**
 * An endpoint's URL, by {@link outboundUrlProblem}: no user name or password either, since they would sit in the
 * table and in every listing (a receiver authenticates deliveries by their signature).
 */
export function checkWebhookUrl(url: string): string {
  const trimmed = url.trim();
  const problem = outboundUrlProblem(trimmed, {
    example: 'https://example.com/webhooks',
    credentials: 'deliveries are signed instead',
    what: 'a receiver',
  });
  if (problem !== undefined) throw new WebhookInputError('url', problem);
  return new URL(trimmed).toString();
}

/**
 * Hosts a delivery must never reach whoever registers them: link-local addresses (a cloud's instance
 * metadata service answers there), the metadata services' own names and IPv6 addresses, unspecified and
 * multicast ones, in every form that reaches them: a name with its trailing dot, an IPv4 address inside an
 * IPv6 one (mapped, compatible, NAT64, 6to4). Loopback and private networks stay allowed: a firm's
 * onboarding system often listens on one. (A name is not resolved here.)
 */
export function refusedHost(hostname: string): string | undefined {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.+$/, '');
  const v4 = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    if (a === 169 && b === 254) return 'a link-local address';
    if (a === 0) return 'an unspecified address';
    if (a >= 224) return 'a multicast or reserved address';
    return undefined;
  }
  if (METADATA_NAMES.has(host)) return 'a cloud metadata service';
  const groups = ipv6Groups(host);
  if (!groups) return undefined;
  if (groups.every((group) => group === 0)) return 'an unspecified address';
  if ((groups[0]! & 0xffc0) === 0xfe80) return 'a link-local address';
  if (groups[0]! >>> 8 === 0xff) return 'a multicast address';
  if (groups.join(':') === METADATA_IPV6) return 'a cloud metadata service';
  const embedded = embeddedIpv4(groups);
  return embedded === undefined ? undefined : refusedHost(embedded);
}

/** Names of cloud metadata services (GCP's; AWS and Azure answer on 169.254.169.254 and fd00:ec2::254). */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata', 'instance-data']);
/** AWS's instance metadata service over IPv6, fd00:ec2::254, as groups. */
const METADATA_IPV6 = [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254].join(':');

/** The eight 16-bit groups of an IPv6 address (an IPv4 tail included), or undefined when it is not one. */
function ipv6Groups(host: string): number[] | undefined {
  if (!host.includes(':') || !/^[0-9a-f:.]+$/.test(host)) return undefined;
  let text = host;
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/**
 * The IPv4 address an IPv6 one carries, where it reaches that IPv4 host: mapped (::ffff:a.b.c.d), compatible
 * (::a.b.c.d), NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/96) and 6to4 (2002:AABB:CCDD::/48).
 */
function embeddedIpv4(groups: number[]): string | undefined {
  const quad = (high: number, low: number) => `${high >>> 8}.${high & 255}.${low >>> 8}.${low & 255}`;
  const zero = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zero(0, 5) && groups[5] === 0xffff) return quad(groups[6]!, groups[7]!);
  // IPv4-compatible: ::1 (loopback) and :: are not.
  if (zero(0, 6) && groups[6] !== 0) return quad(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && (groups[2] === 0 || groups[2] === 1) && zero(3, 6)) {
    return quad(groups[6]!, groups[7]!);
  }
  if (groups[0] === 0x2002) return quad(groups[1]!, groups[2]!);
  return undefined;
}

export function checkDescription(description: string | undefined): string {
  const trimmed = (description ?? '').trim();
  // eslint-disable-next-line no-control-regex -- descriptions are printed in tables: no control characters
  if (trimmed.length > MAX_DESCRIPTION_LENGTH || /[\u0000-\u001f\u007f-\u009f]/.test(trimmed)) {
    throw new WebhookInputError('description', `give up to ${MAX_DESCRIPTION_LENGTH} printable characters`);
  }
  return trimmed;
}

/** A cursor given as `<tx>-<position>` text or as one. */
export function checkCursor(cursor: EventCursor | string): EventCursor {
  const text = typeof cursor === 'string' ? cursor : formatCursor(cursor);
  const parsed = parseCursor(text);
  if (!parsed) throw new WebhookInputError('cursor', `"${text}" is not an event cursor (<tx>-<position>)`);
  return parsed;
}

export function checkKeepPrevious(ms: number): number {
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_KEEP_PREVIOUS_MS) {
    throw new WebhookInputError(
      'keepPreviousForMs',
      `give whole milliseconds from 0 to ${MAX_KEEP_PREVIOUS_MS} (30 days)`,
    );
  }
  return ms;
}

/**
 * An error's text as an endpoint keeps and shows it: no secret (a `whsec_` value is masked), no
 * control characters, at most 500 characters.
 */
export function redactedError(text: string): string {
  return (
    text
      .replace(/whsec_[A-Za-z0-9+/=]+/g, 'whsec_…')
      // eslint-disable-next-line no-control-regex -- shown in tables and logs
      .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
      .slice(0, 500)
  );
}
