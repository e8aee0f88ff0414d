/**
 * What a firm is made of (runtime/firms.ts keeps them): its settings, checked field by field, and its
 * OpenPGP keys, read from text or files and checked before they are stored.
 */
import { readFileSync } from 'node:fs';
import { createPrivateKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { OPERATIONS } from '../eca/web-client/operations.js';
import { isTimeZone } from '../domain/days.js';
import { parseMaintenanceWindows } from '../domain/maintenance-windows.js';
import { FIRM_TYPES } from '../domain/firm-types.js';
import { PROTOCOLS } from '../domain/protocols.js';
import type { Protocol } from '../domain/protocols.js';
import { durationMs } from '../domain/durations.js';
import type { Duration } from '@temporalio/common';
import { FirmInputError } from './firm-errors.js';
import { CSID_PATTERN } from './api-keys.js';
import { scopesProblem } from '../webapi/oauth.js';
import { outboundUrlProblem } from './webhook-input.js';

/**
 * What is wrong with a brokerage URL, if anything: the webhook registry's rules (`outboundUrlProblem`), since every
 * worker sends the firm's assertions, tokens and signed bodies there; loopback and private networks stay allowed.
 * The address a name resolves to is checked at every connection (runtime/checked-fetch.ts).
 */
export function brokerageUrlProblem(url: string): string | undefined {
  return outboundUrlProblem(url, {
    example: 'https://api.example.com',
    credentials: 'the brokerage authenticates the firm by its keys',
    what: 'a brokerage',
  });
}

/**
 * A firm's OpenPGP keys, as armored text, for the XML service; and the private key of its Web API client
 * (PEM). A firm that joined on the Web API holds no OpenPGP keys: it has the Web API key alone.
 */
export interface FirmKeys {
  firmPrivateKey?: string;
  passphrase?: string;
  brokeragePublicKey?: string;
  webApiPrivateKey?: string;
}

/** The keys of a firm that holds OpenPGP keys: what the XML service's client is built with. */
export type OpenPgpKeys = FirmKeys & { firmPrivateKey: string; brokeragePublicKey: string };

export function holdsOpenPgpKeys(keys: FirmKeys): keys is OpenPgpKeys {
  return Boolean(keys.firmPrivateKey && keys.brokeragePublicKey);
}

/** What a firm on `protocol` must hold: the XML service needs the OpenPGP keys (the Web API's key is checked when its client is built). */
export function requireKeysFor(protocol: Protocol, hasOpenPgpKeys: boolean): void {
  if (protocol === 'xml' && !hasOpenPgpKeys) {
    throw new FirmInputError(
      'keys',
      'a firm on the XML service holds OpenPGP keys (firmPrivateKey, brokeragePublicKey): add them before protocol xml',
    );
  }
}

export { PROTOCOLS };
export type { Protocol } from '../domain/protocols.js';

/** A firm's Web API client, as the brokerage registered it (its private key is among the firm's keys). */
export const WebApiSettingsSchema = z.strictObject({
  baseUrl: z.url(),
  clientId: z.string().regex(/^[\x21-\x7e]{1,200}$/, 'printable ASCII without spaces, 1 to 200 characters'),
  keyId: z.string().regex(/^[\x21-\x7e]{1,200}$/, 'printable ASCII without spaces, 1 to 200 characters'),
  /** The client assertion's `aud`: `/token` (the brokerage's sample) unless set; the token endpoint's URL is the other reading. */
  assertionAudience: z
    .string()
    .regex(/^[\x21-\x7e]{1,2048}$/, 'printable ASCII without spaces, 1 to 2048 characters')
    .optional(),
  /** The scopes the token request asks for: the engine's calls' (webapi/oauth.ts) unless set; at most the registered ones. */
  scopes: z
    .array(z.string())
    .superRefine((scopes, context) => {
      const problem = scopesProblem(scopes);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
});
export type WebApiSettings = z.infer<typeof WebApiSettingsSchema>;

const positiveInt = z.number().int().positive();

/** The brokerage's maintenance windows as written (`03:00-03:30; Sun 22:00-02:00`), checked. */
export const MaintenanceWindowsText = z
  .string()
  .optional()
  .superRefine((text, context) => {
    try {
      parseMaintenanceWindows(text ?? '');
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
    }
  });

/** An IANA time zone (the clock maintenance windows are read on). */
export const TimeZoneName = z
  .string()
  .refine(isTimeZone, { message: 'expected an IANA time zone (America/New_York, UTC)' });

/** What a firm's brokerage calls and update functions follow; every field but the environment optional. */
export const FirmSettingsSchema = z
  .strictObject({
    environment: z.enum(['qa', 'prod']).default('qa'),
    /**
     * The protocol the firm's applications start on (docs/operate.md, "Which protocol"): `xml` unless set. An application
     * keeps the protocol it started on (activities/protocol-router.ts).
     */
    protocol: z.enum(PROTOCOLS).default('xml'),
    /** The firm's Web API client: required for `protocol: webapi`. */
    webApi: WebApiSettingsSchema.optional(),
    /** The brokerage's URLs: checked by {@link brokerageUrlProblem} as new input (checkFirmSettings), and at every connection. */
    baseUrl: z.url().optional(),
    preferenceUrl: z.url().optional(),
    /** The firm's type(s) for update functions (workflows/maintenance/functions.ts). */
    firmTypes: z.array(z.enum(FIRM_TYPES)).default([]),
    /** The firm's brokerage calls a second, across every worker (runtime/call-budget.ts); no cap unless set. */
    callsPerSecond: positiveInt.optional(),
    callsPerSecondByOperation: z.partialRecord(z.enum(OPERATIONS), positiveInt).optional(),
    /** No brokerage call inside: `03:00-03:30; Sun 22:00-02:00`. */
    maintenanceWindows: MaintenanceWindowsText,
    maintenanceTimeZone: TimeZoneName.default('UTC'),
    /**
     * The slot of the firm's status sweep (`10 minutes`, `90s`): it reads the firm's accounts once a slot. The
     * deployment's (5 minutes, or the API's settings) when not set; a running sweep keeps its slot until it
     * starts again.
     */
    sweepInterval: z
      .string()
      .refine((text) => {
        try {
          return durationMs(text as Duration) >= 1_000;
        } catch {
          return false;
        }
      }, 'expected a duration of a second or more (90s, 10 minutes)')
      .optional(),
  })
  .refine((settings) => settings.protocol !== 'webapi' || settings.webApi !== undefined, {
    path: ['webApi'],
    message: 'a firm on the Web API (protocol webapi) needs its client: baseUrl, clientId, keyId',
  });
export type FirmSettings = z.infer<typeof FirmSettingsSchema>;

/** A firm's CSID, by the rule API keys follow (runtime/api-keys.ts): the spec names no format. */
export function checkCsid(csid: string, input = 'csid'): string {
  if (!CSID_PATTERN.test(csid)) {
    throw new FirmInputError(input, `"${csid}" is not a CSID (1 to 64 letters, digits, '.', '_' or '-')`);
  }
  return csid;
}

export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200) throw new FirmInputError('name', 'give 1 to 200 characters');
  return trimmed;
}

/** The settings' brokerage URLs, each by the field that names it. */
export function brokerageUrls(settings: FirmSettings): { field: string; url: string }[] {
  return [
    ...(settings.webApi ? [{ field: 'webApi.baseUrl', url: settings.webApi.baseUrl }] : []),
    ...(settings.baseUrl !== undefined ? [{ field: 'baseUrl', url: settings.baseUrl }] : []),
    ...(settings.preferenceUrl !== undefined ? [{ field: 'preferenceUrl', url: settings.preferenceUrl }] : []),
  ];
}

/** The first of the settings' brokerage URLs (of `fields`, when given) that is refused, with why; undefined when none is. */
export function refusedBrokerageUrl(
  settings: FirmSettings,
  fields?: readonly string[],
): { field: string; url: string; problem: string } | undefined {
  for (const { field, url } of brokerageUrls(settings)) {
    if (fields !== undefined && !fields.includes(field)) continue;
    const problem = brokerageUrlProblem(url);
    if (problem !== undefined) return { field, url, problem };
  }
  return undefined;
}

/** Settings checked as new input (an admin's, the environment's), each problem naming its field. */
export function checkFirmSettings(input: unknown): FirmSettings {
  const settings = storedFirmSettings(input);
  const refused = refusedBrokerageUrl(settings);
  if (refused) throw new FirmInputError(refused.field, refused.problem);
  return settings;
}

/**
 * Settings read from a firm's row, checked by the schema. The brokerage URLs' rules are not applied here: a row
 * written before them stays readable (listed, changed, disabled), and its client is refused when it is built
 * (runtime/firm-brokerages.ts), naming the setting.
 */
export function storedFirmSettings(input: unknown): FirmSettings {
  const result = FirmSettingsSchema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new FirmInputError(issue.path.join('.') || 'settings', issue.message);
  }
  return result.data;
}

/** Key bytes (armored text, or a binary key) as armored text; what they hold is never quoted in an error. */
export async function armoredKey(bytes: Uint8Array, kind: 'private' | 'public'): Promise<string> {
  const text = Buffer.from(bytes).toString('utf8');
  if (text.includes('-----BEGIN PGP')) return text;
  // OpenPGP is loaded only where a key is read: most commands that load firm settings hold none.
  const openpgp = await import('openpgp');
  try {
    // A binary key: armored as it is (a protected private key stays protected).
    return kind === 'private'
      ? (await openpgp.readPrivateKey({ binaryKey: bytes })).armor()
      : (await openpgp.readKey({ binaryKey: bytes })).armor();
  } catch {
    throw new Error(`not an OpenPGP ${kind} key, armored or binary`);
  }
}

/**
 * A key given as armored text or as a file path (armored or binary), as armored text. A value that is
 * neither is refused without being quoted: it may be a key in another encoding.
 */
export async function armoredKeyText(armoredOrPath: string, kind: 'private' | 'public'): Promise<string> {
  if (armoredOrPath.includes('-----BEGIN PGP')) return armoredOrPath;
  let bytes: Buffer;
  try {
    bytes = readFileSync(armoredOrPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new Error(`neither armored key text nor the path of a readable key file (${code})`);
  }
  return armoredKey(bytes, kind);
}

/**
 * Keys read and checked (the private key opens with the passphrase and can sign, the public key can
 * encrypt), as armored text; a problem names the key.
 */
export async function checkFirmKeys(keys: FirmKeys): Promise<FirmKeys> {
  const read = async (name: string, run: () => Promise<string>): Promise<string> => {
    try {
      return await run();
    } catch (error) {
      throw new FirmInputError(name, (error as Error).message);
    }
  };
  const webApiPrivateKey =
    keys.webApiPrivateKey === undefined
      ? undefined
      : await read('webApiPrivateKey', () => Promise.resolve(webApiKeyText(keys.webApiPrivateKey!)));
  // The OpenPGP keys go together; a firm without them is on the Web API alone, with its key.
  if (!keys.firmPrivateKey && !keys.brokeragePublicKey) {
    if (webApiPrivateKey === undefined) {
      throw new FirmInputError(
        'keys',
        'a firm holds OpenPGP keys (firmPrivateKey and brokeragePublicKey, for the XML service), a Web API key (webApiPrivateKey), or both',
      );
    }
    return { webApiPrivateKey };
  }
  for (const name of ['firmPrivateKey', 'brokeragePublicKey'] as const) {
    if (!keys[name])
      throw new FirmInputError(name, 'the OpenPGP keys go together: both, or neither for a firm on the Web API alone');
  }
  const { loadPrivateKey, loadPublicKey } = await import('../eca/crypto.js');
  const firmPrivateKey = await read('firmPrivateKey', async () => {
    const text = await armoredKeyText(keys.firmPrivateKey!, 'private');
    await loadPrivateKey(text, keys.passphrase);
    return text;
  });
  const brokeragePublicKey = await read('brokeragePublicKey', async () => {
    const text = await armoredKeyText(keys.brokeragePublicKey!, 'public');
    await loadPublicKey(text);
    return text;
  });
  return {
    firmPrivateKey,
    brokeragePublicKey,
    ...(keys.passphrase ? { passphrase: keys.passphrase } : {}),
    ...(webApiPrivateKey !== undefined && { webApiPrivateKey }),
  };
}

/** A Web API client's RSA private key (PEM text, or the path of a PEM file), checked, as PEM text. */
export function webApiKeyText(pemOrPath: string): string {
  let text = pemOrPath;
  if (!pemOrPath.includes('-----BEGIN')) {
    try {
      text = readFileSync(pemOrPath, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new Error(`neither PEM key text nor the path of a readable key file (${code})`);
    }
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(text);
  } catch {
    throw new Error('not a PEM private key');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new Error('an RSA key is needed (RS256)');
  return text;
}

/** The keys as one text: what their digest is taken of (runtime/firm-keys-digest.ts). */
export function keysText(keys: FirmKeys): string {
  // Line ends and surrounding blanks aside: the same key read on two hosts is the same key.
  const text = (key: string) => key.replace(/\r\n/g, '\n').trim();
  return JSON.stringify([
    text(keys.firmPrivateKey ?? ''),
    keys.passphrase ?? '',
    text(keys.brokeragePublicKey ?? ''),
    // Only when present: the texts of keys without one are those of 1.x.
    ...(keys.webApiPrivateKey === undefined ? [] : [text(keys.webApiPrivateKey)]),
  ]);
}
