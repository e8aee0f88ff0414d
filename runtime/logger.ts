/**
 * The engine's logs, on pino: JSON lines in production, pretty in a terminal (`ECA_LOG_FORMAT`), with
 * personal data and secrets kept out of every line.
 *
 * Two guards, because log lines carry two kinds of data:
 * - **Structured fields**, by path: pino's `redact` censors every key of {@link PERSONAL_DATA_KEYS} at any
 *   depth up to {@link REDACT_DEPTH} (the application XML, documents, names, e-mail, tax ids, passwords,
 *   request headers...). The engine's own log calls never put such a field in a line; the paths catch one
 *   that gets there anyway (an error's properties, a library's metadata).
 * - **Free text**: a message, an error's text, any string field. The brokerage's error texts are free text
 *   the spec gives no catalogue of, and the SDK logs an activity's failure with its text. Every string is
 *   scrubbed by {@link scrubText}: e-mail addresses, tax ids, and the attribute values and text of any XML
 *   it quotes.
 *
 * The worker hands the SDK a {@link temporalLogger} over the same pino logger, so the SDK's lines (activity
 * failures, workflow logs through its sink, the core's) pass through both guards too.
 */
import { pino } from 'pino';
import type { DestinationStream, Logger as PinoLogger, LevelWithSilent, LoggerOptions as LoggerOptions_ } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { Logger, LogLevel, LogMetadata } from '@temporalio/common';

export type { PinoLogger };

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** What a redacted field reads. */
export const REDACTED = '[redacted]';

/**
 * Keys whose values are personal data or secrets wherever they appear in a log line. The application's
 * fields by the names the import schema and the spec's operations use (`first`, `TIN`, `DriversLicense`...)
 * and the usual ones (`email`, `phone`, `dateOfBirth`...); whole documents; credentials.
 */
export const PERSONAL_DATA_KEYS = [
  // Whole documents: the application XML, PDFs, response files, payloads.
  'xml',
  'applicationXml',
  'application',
  'document',
  'documents',
  'content',
  'fileData',
  'payload',
  'body',
  // The applicant, by field.
  'applicant',
  'first',
  'last',
  'middle',
  'firstName',
  'lastName',
  'fullName',
  'email',
  'phone',
  'mobile',
  'dateOfBirth',
  'birthDate',
  'DOB',
  'address',
  'street',
  'TIN',
  'taxId',
  'ssn',
  'DriversLicense',
  'licence',
  'passport',
  'PassportNumber',
  'userName',
  // Credentials and session links.
  'password',
  'temporaryPassword',
  'passphrase',
  'secret',
  'token',
  'apiKey',
  'authorization',
  'cookie',
  'SIGNED_URL',
  'signedUrl',
] as const;

/** How deep under a log line the keys are found: `key`, `*.key`, `*.*.key`, `*.*.*.key`. */
export const REDACT_DEPTH = 3;

/** pino's redact paths for {@link PERSONAL_DATA_KEYS}, at every depth up to {@link REDACT_DEPTH}. */
export function redactPaths(keys: readonly string[] = PERSONAL_DATA_KEYS): string[] {
  return Array.from({ length: REDACT_DEPTH + 1 }, (_, depth) =>
    keys.map((key) => `${'*.'.repeat(depth)}${key}`),
  ).flat();
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/** SSN and ITIN (`123-45-6789`, or nine digits alone) and EIN (`12-3456789`). */
const TAX_ID = /(?<![\d-])(?:\d{3}-\d{2}-\d{4}|\d{2}-\d{7}|\d{9})(?![\d-])/g;
/** A quoted attribute, in XML or not (`first="…"`): its value goes. */
const ATTRIBUTE = /((?:^|[\s,;(])[\w:.-]+\s*=\s*)(?:"[^"\n]*"|'[^'\n]*')/g;
/** The text between two tags of quoted XML, on one line: it goes. */
const XML_TEXT = />([^<>\n]*[^\s<>][^<>\n]*)</g;

/**
 * A free text as it may be logged: e-mail addresses, tax ids and quoted attribute values (`first="…"`)
 * masked; in XML it quotes (a text with a tag in it), the elements' text too.
 */
export function scrubText(text: string): string {
  const out = text.replace(EMAIL, '[email]').replace(TAX_ID, '[tax id]').replace(ATTRIBUTE, `$1"${REDACTED}"`);
  return /<\/?[A-Za-z][\w:.-]*[\s/>]/.test(out) ? out.replace(XML_TEXT, `>${REDACTED}<`) : out;
}

/** An error as a log field: its type, scrubbed text and stack, and its cause the same way. */
function errorField(error: Error, depth: number): Record<string, unknown> {
  const field: Record<string, unknown> = { type: error.name, message: scrubText(error.message) };
  if (error.stack) field.stack = scrubText(error.stack);
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== undefined) field.cause = scrubValue(cause, depth + 1);
  return field;
}

const MAX_DEPTH = 8;

/**
 * A log field with its free text scrubbed, through plain objects and arrays (errors as {@link errorField});
 * symbols and functions dropped.
 */
function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (value instanceof Error) return errorField(value, depth);
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1));
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
  // Other objects (a request, say) are left to their serializer.
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = scrubValue(item, depth + 1);
  return out;
}

export interface LoggerOptions {
  /** The process, as the `name` of every line (`eca-worker`, `eca-api`). */
  name: string;
  /** `TRACE`...`ERROR` (the engine's settings), or pino's own names. */
  level?: LogLevel | LevelWithSilent;
  /** `json` (one object per line) or `pretty`; by default pretty when standard output is a terminal. */
  format?: LogFormat;
  /** Where lines go: standard output by default. */
  destination?: DestinationStream;
  /** pino's serializers, by field (the API's `req`, say). */
  serializers?: LoggerOptions_['serializers'];
}

/** A pino logger with the engine's redaction (see the module's comment). */
export function createLogger(options: LoggerOptions): PinoLogger {
  const format = options.format ?? (process.stdout.isTTY ? 'pretty' : 'json');
  const stream =
    format === 'pretty'
      ? PinoPretty({
          sync: true,
          colorize: options.destination === undefined && process.stdout.isTTY === true,
          ignore: 'pid,hostname',
          translateTime: 'SYS:HH:MM:ss.l',
          ...(options.destination ? { destination: options.destination } : {}),
        })
      : (options.destination ?? pino.destination({ dest: 1, sync: true }));
  return pino(
    {
      name: options.name,
      level: (options.level ?? 'INFO').toLowerCase(),
      timestamp: pino.stdTimeFunctions.isoTime,
      base: { pid: process.pid },
      redact: { paths: redactPaths(), censor: REDACTED },
      ...(options.serializers ? { serializers: options.serializers } : {}),
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => scrubValue(object) as Record<string, unknown>,
      },
      hooks: {
        // The message and the format's arguments: free text too.
        logMethod(args, method) {
          const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrubText(arg) : arg));
          method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    stream,
  );
}

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/** The SDK's `Logger` (for `Runtime.install`) over a pino logger: the SDK's metadata become the line's fields. */
export function temporalLogger(logger: PinoLogger): Logger {
  const log = (level: LogLevel, message: string, meta?: LogMetadata): void => {
    const method = LEVELS[level] ?? 'info';
    if (!logger.isLevelEnabled(method)) return;
    logger[method]({ ...meta }, message);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}
