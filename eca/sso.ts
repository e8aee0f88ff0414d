/**
 * Single sign-on into the hosted portal: the session request (user name + the end user's one IP), the signed URL in
 * the response (base64, validated before it reaches a browser), and the landing pages appended to it.
 */
import { isIP } from 'node:net';
import { EcaRequestError, EcaSchemaError } from './errors.js';
import { fromBase64 } from './crypto.js';
import { findLandingPage } from './landing-pages.js';
import type { LandingPage } from './landing-pages.js';

/**
 * Field names of the JSON inside the sso/create payload. The spec says the JSON carries the account holder's user
 * name and the end user's IP but does not show the names; these are this library's choice, shared with the simulator.
 */
export const SSO_PAYLOAD_FIELDS = { userName: 'USER_NAME', ip: 'IP' } as const;

export type SsoPayload = { [SSO_PAYLOAD_FIELDS.userName]: string; [SSO_PAYLOAD_FIELDS.ip]: string };

/** A signed URL is valid this long after it is issued, and only from the IP sent in the request. */
export const SSO_URL_VALIDITY_MS = 60_000;

export type EcaEnvironment = 'qa' | 'prod';

/**
 * Hosts a signed URL may point at, per environment. Placeholders: a deployment passes the brokerage's portal hosts
 * (client option `sso.allowedHosts`). A leading `*.` allows any subdomain.
 */
export const DEFAULT_SSO_ALLOWED_HOSTS: Readonly<Record<EcaEnvironment, readonly string[]>> = {
  qa: ['portal.qa.eca.example.invalid'],
  prod: ['portal.eca.example.invalid'],
};

/** Checks that `ip` is exactly one IPv4 or IPv6 address (the end user's own); returns it trimmed. */
export function checkSingleIp(ip: unknown, parameter = 'ip'): string {
  if (Array.isArray(ip)) {
    if (ip.length !== 1) throw new EcaRequestError(parameter, `exactly one IP is expected, got ${ip.length}`);
    return checkSingleIp(ip[0], parameter);
  }
  if (typeof ip !== 'string' || ip.trim() === '') throw new EcaRequestError(parameter, 'an IP address is required');
  const text = ip.trim();
  if (/[\s,;]/.test(text)) throw new EcaRequestError(parameter, 'exactly one IP is expected');
  if (isIP(text) === 0) throw new EcaRequestError(parameter, 'not an IPv4 or IPv6 address');
  return text;
}

export function checkUserName(userName: unknown, parameter = 'userName'): string {
  if (typeof userName !== 'string' || userName.trim() === '') {
    throw new EcaRequestError(parameter, 'a user name is required');
  }
  if (/\s/.test(userName.trim())) throw new EcaRequestError(parameter, 'a user name has no spaces');
  return userName.trim();
}

export function buildSsoPayload(input: { userName: string; ip: string | string[] }): SsoPayload {
  return {
    [SSO_PAYLOAD_FIELDS.userName]: checkUserName(input.userName),
    [SSO_PAYLOAD_FIELDS.ip]: checkSingleIp(input.ip),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Signed URL

export interface SignedUrlOptions {
  /** Hosts allowed for the environment; defaults to {@link DEFAULT_SSO_ALLOWED_HOSTS}. */
  allowedHosts?: readonly string[];
  /**
   * Also accept `http` URLs on a loopback host (127.0.0.1, ::1, localhost), whatever `allowedHosts` says: for a
   * local simulator in tests and development only.
   */
  allowInsecureLoopback?: boolean;
  /**
   * When the URL was issued, at the latest; defaults to now. The client passes the time the request was sent, so
   * that expiresAt never lies after the end of the brokerage's 60 seconds.
   */
  issuedAt?: Date;
}

export interface SignedUrl {
  /** The URL exactly as issued. */
  url: string;
  host: string;
  /**
   * The session id: the URL's `SID` query parameter (raw text), when it carries one (several must agree). The spec
   * says only that `<sid>` "is the session id of the URL"; a URL that holds it elsewhere has none here.
   */
  sid?: string;
  issuedAt: Date;
  /** issuedAt + 60 s: after this the brokerage refuses the URL. */
  expiresAt: Date;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', '::1', 'localhost']);

function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.toLowerCase();
  return allowed.some((entry) => {
    const pattern = entry.toLowerCase();
    return pattern.startsWith('*.')
      ? name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1
      : name === pattern;
  });
}

/** Validates a decoded signed URL: https (or loopback http when allowed), an allowed host, no embedded credentials. */
export function validateSignedUrl(
  urlText: string,
  environment: EcaEnvironment,
  options: SignedUrlOptions = {},
  path = 'SUCCESS.SIGNED_URL',
): SignedUrl {
  let url: URL;
  try {
    url = new URL(urlText.trim());
  } catch (cause) {
    throw new EcaSchemaError(path, 'the signed URL is not a URL', { cause });
  }
  if (url.username !== '' || url.password !== '') {
    throw new EcaSchemaError(path, 'the signed URL must not carry credentials');
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname.toLowerCase());
  const insecureLoopbackOk = options.allowInsecureLoopback === true && loopback;
  if (url.protocol !== 'https:' && !(insecureLoopbackOk && url.protocol === 'http:')) {
    throw new EcaSchemaError(path, `the signed URL must use https, got ${url.protocol.replace(':', '')}`);
  }
  const allowed = options.allowedHosts ?? DEFAULT_SSO_ALLOWED_HOSTS[environment];
  if (!insecureLoopbackOk && !hostAllowed(url.hostname, allowed)) {
    throw new EcaSchemaError(path, `host ${url.hostname} is not allowed for the ${environment} environment`);
  }
  const issuedAt = options.issuedAt ?? new Date();
  const signed: SignedUrl = {
    url: urlText.trim(),
    host: url.hostname,
    issuedAt,
    expiresAt: new Date(issuedAt.getTime() + SSO_URL_VALIDITY_MS),
  };
  const sid = sessionIdOf(url.search);
  if (sid !== undefined) signed.sid = sid;
  return signed;
}

/**
 * The `SID` query parameter of a URL's query text (raw, as the landing entries append it), when it has one value:
 * several `SID` parameters that differ, or an empty one, give none. `SID` is upper case (spec, sso/create rule 7).
 */
function sessionIdOf(query: string): string | undefined {
  const values = new Set([...query.matchAll(/[?&]SID=([^&#]*)/g)].map((match) => match[1] ?? ''));
  const [sid] = values;
  return values.size === 1 && sid !== undefined && sid !== '' ? sid : undefined;
}

/**
 * A landing page needs the session id (`SID=<sid>`) and the signed URL carries no `SID` query parameter. The spec
 * says only that `<sid>` "is the session id of the URL", not where the URL holds it, so no landing URL is built
 * rather than a guessed one; the signed URL itself still opens the portal's home page (sso/create rule 4).
 */
export class EcaSsoSessionIdError extends EcaSchemaError {
  /** The landing page asked for. */
  readonly landing: string;

  constructor(landing: string) {
    super(
      'SIGNED_URL',
      `carries no SID query parameter (one value), so the session id that the landing page ${landing} appends ` +
        '(SID=<sid>) is unknown: where else the URL holds it is not shown. Ask for the link without a landing ' +
        "page: it opens the portal's home page",
    );
    this.landing = landing;
  }
}

/** Decodes `SUCCESS.SIGNED_URL` (base64 of the URL) and validates it. */
export function decodeSignedUrl(
  base64: string,
  environment: EcaEnvironment,
  options: SignedUrlOptions = {},
): SignedUrl {
  const bytes = typeof base64 === 'string' ? fromBase64(base64) : undefined;
  if (!bytes || bytes.length === 0) throw new EcaSchemaError('SUCCESS.SIGNED_URL', 'not base64 text');
  return validateSignedUrl(new TextDecoder().decode(bytes), environment, options);
}

export const TRANSFER_FUNDS_TYPES = ['DEPOSIT', 'WITHDRAWAL'] as const;
export const TRANSFER_FUNDS_METHODS = ['ACH', 'WIRE', 'EDDA', 'EFT'] as const;
/** Currencies the spec names; others of three upper-case letters are accepted too (the full list is not shown). */
export const TRANSFER_FUNDS_CURRENCIES = ['USD', 'CAD', 'HKD', 'CNH', 'EUR', 'GBP', 'AUD'] as const;

export interface TransferFundsParams {
  type: (typeof TRANSFER_FUNDS_TYPES)[number];
  method: (typeof TRANSFER_FUNDS_METHODS)[number];
  currency: string;
}

export const TRANSFER_FUNDS_LANDING_ID = 'transfer-funds';

function checkTransferFunds(params: TransferFundsParams): TransferFundsParams {
  if (!(TRANSFER_FUNDS_TYPES as readonly string[]).includes(params.type)) {
    throw new EcaRequestError('transferFunds.type', `expected one of ${TRANSFER_FUNDS_TYPES.join(', ')}`);
  }
  if (!(TRANSFER_FUNDS_METHODS as readonly string[]).includes(params.method)) {
    throw new EcaRequestError('transferFunds.method', `expected one of ${TRANSFER_FUNDS_METHODS.join(', ')}`);
  }
  if (typeof params.currency !== 'string' || !/^[A-Z]{3}$/.test(params.currency)) {
    throw new EcaRequestError('transferFunds.currency', 'expected three upper-case letters, e.g. USD');
  }
  return params;
}

const PLACEHOLDER_VALUE = /^[A-Za-z0-9._~%-]+$/;

export interface LandingValues {
  /** Overrides the SID read from the signed URL. */
  sid?: string;
  accountId?: string;
  masterAccountId?: string;
}

/** The query text of a URL (from `?` up to any `#`), empty when it has none. */
function queryOf(urlText: string): string {
  const start = urlText.indexOf('?');
  if (start < 0) return '';
  const end = urlText.indexOf('#', start);
  return end < 0 ? urlText.slice(start) : urlText.slice(start, end);
}

/**
 * The URL that opens `landing` in the session: the signed URL plus the landing parameters, appended verbatim with
 * `?` or `&`. With `transferFunds` (only for the Transfer Funds page), method, type and currency are added in the
 * spec's order; without, the page shows all saved instructions. Throws {@link EcaSsoSessionIdError} when the page
 * needs the session id and neither `values.sid` nor a `SID` query parameter of the signed URL gives it.
 */
export function buildLandingUrl(
  signedUrl: string | SignedUrl,
  landing: LandingPage | string,
  transferFunds?: TransferFundsParams,
  values: LandingValues = {},
): string {
  const page = typeof landing === 'string' ? findLandingPage(landing) : landing;
  if (!page) throw new EcaRequestError('landing', 'unknown landing page id');
  const base = typeof signedUrl === 'string' ? signedUrl : signedUrl.url;
  const urlSid = typeof signedUrl === 'string' ? sessionIdOf(queryOf(base)) : signedUrl.sid;
  let query = page.query;
  if (transferFunds !== undefined) {
    if (page.id !== TRANSFER_FUNDS_LANDING_ID) {
      throw new EcaRequestError('transferFunds', 'transfer parameters apply only to the Transfer Funds page');
    }
    const { method, type, currency } = checkTransferFunds(transferFunds);
    query = `ACTION=TransferFunds&method=${method}&type=${type}&currency=${currency}&SID=<sid>`;
  }
  const substitutions: Array<[placeholder: string, value: string | undefined, parameter: string]> = [
    ['<sid>', values.sid, 'sid'],
    ['<account_id>', values.accountId, 'accountId'],
    ['<master_account_id>', values.masterAccountId, 'masterAccountId'],
  ];
  for (const [placeholder, value, parameter] of substitutions) {
    if (!query.includes(placeholder)) continue;
    if (placeholder === '<sid>' && value === undefined) {
      // The URL's own SID is raw query text (no `&` or `#`): appended as it stands.
      if (urlSid === undefined) throw new EcaSsoSessionIdError(page.id);
      query = query.split(placeholder).join(urlSid);
      continue;
    }
    if (value === undefined || !PLACEHOLDER_VALUE.test(value)) {
      throw new EcaRequestError(parameter, `a value without spaces or separators is required for ${placeholder}`);
    }
    query = query.split(placeholder).join(value);
  }
  const separator = base.endsWith('?') || base.endsWith('&') ? '' : base.includes('?') ? '&' : '?';
  return `${base}${separator}${query}`;
}
