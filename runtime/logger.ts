/**
 * The engine's logs, on pino: JSON lines in production, pretty in a terminal (`ECA_LOG_FORMAT`), with
 * personal data and secrets kept out of every line by pino's log formatter, before a line is written.
 *
 * Two guards, because log lines carry two kinds of data:
 * - **Fields**, by name: a field named in {@link PERSONAL_DATA_KEYS} (the application XML, documents, names,
 *   e-mail, tax ids, passwords, authorization...) reads `[redacted]`, at any depth and in any spelling
 *   (`first_name`, `FirstName`). The engine's own log calls never write such a field; the guard catches one
 *   that gets there anyway (an error's properties, a library's metadata). pino's own `redact` paths were
 *   not used: they name fixed depths, and their wildcards cost ~0.25 ms a line.
 * - **Free text**: a message, an error's text and stack, any string field. The brokerage's error texts are
 *   free text the spec gives no catalogue of, and the SDK logs an activity's failure with its text. Every
 *   string is scrubbed by {@link scrubText}: e-mail addresses, tax ids, quoted values of personal-data names,
 *   and the attribute values and text of any XML it quotes. First, the brokerage's own words, which the
 *   engine's messages quote between « and » (eca/errors.ts `quoteService`: a per-account error entry, an
 *   HTTP answer's excerpt), are withheld whole: a name in prose is a word like any other.
 *
 * The worker hands the SDK a {@link temporalLogger} over the same pino logger, so the SDK's lines (activity
 * failures, workflow logs through its sink, the core's) pass through both guards too.
 */
import { pino } from 'pino';
import type { DestinationStream, Logger as PinoLogger, LevelWithSilent, LoggerOptions as PinoOptions } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { Logger, LogLevel, LogMetadata } from '@temporalio/common';
import { withholdService } from '../eca/errors.js';

export type { PinoLogger };

import type { LogFormat } from './log-format.js';

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

/** A key as compared: lower case, without `_` and `-` (`first_name`, `firstName` and `FirstName` are one). */
const normalKey = (key: string) => key.toLowerCase().replace(/[_-]/g, '');
const PERSONAL = new Set<string>(PERSONAL_DATA_KEYS.map(normalKey));

/** Whether a field of this name is redacted wherever it is. */
export function isPersonalDataKey(key: string): boolean {
  return PERSONAL.has(normalKey(key));
}

/** Fields the SDK and the API identify work by: kept as they are, so that a line matches what Temporal shows. */
const ID_FIELDS = new Set([
  'workflowId',
  'runId',
  'workflowRunId',
  'activityId',
  'activityType',
  'workflowType',
  'taskQueue',
  'namespace',
  'taskToken',
  'reqId',
  'requestId',
  'sdkComponent',
  'target',
]);

/** Past this many characters a text is cut before it is scrubbed (and logged). */
export const MAX_TEXT = 16 * 1024;

const EMAIL = /[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9-])/g;
/** SSN and ITIN (`123-45-6789`, or nine digits alone) and EIN (`12-3456789`), not inside a longer token. */
const TAX_ID = /(?<![\w-])(?:\d{3}-\d{2}-\d{4}|\d{2}-\d{7}|\d{9})(?![\w-])/g;
/** A quoted value after a name, `name="…"` or `"name": "…"`: the value goes when the name is personal data. */
const NAMED_VALUE = /(["']?)([\w:.-]+)\1(\s*[=:]\s*)("[^"\n]*"|'[^'\n]*')/g;
/** Markup that says a text quotes XML: a closing tag, a self-closing one, or a tag with an attribute. */
const XML = /<\/[A-Za-z][\w:.-]*>|<[A-Za-z][\w:.-]*(?:\s[^<>]*)?\/>|<[A-Za-z][\w:.-]*\s+[\w:.-]+\s*=/;
/** In quoted XML, every attribute value... */
const XML_ATTRIBUTE = /(\s[\w:.-]+\s*=\s*)(?:"[^"]*"|'[^']*')/g;
/** ...and the text between two tags. */
const XML_TEXT = />([^<>]*[^\s<>][^<>]*)</g;

/**
 * A free text as it may be logged: the service's words it quotes withheld; cut at {@link MAX_TEXT}; e-mail
 * addresses, tax ids and the quoted values of personal-data names (`first="…"`, `"email": "…"`) masked; in
 * XML it quotes, every attribute value and element text.
 */
export function scrubText(text: string): string {
  const own = withholdService(text);
  const cut = own.length > MAX_TEXT ? `${own.slice(0, MAX_TEXT)}…[${own.length - MAX_TEXT} more characters]` : own;
  let out = cut
    .replace(EMAIL, '[email]')
    .replace(TAX_ID, '[tax id]')
    .replace(NAMED_VALUE, (whole, quote: string, name: string, separator: string) =>
      isPersonalDataKey(name) ? `${quote}${name}${quote}${separator}"${REDACTED}"` : whole,
    );
  if (XML.test(out)) out = out.replace(XML_ATTRIBUTE, `$1"${REDACTED}"`).replace(XML_TEXT, `>${REDACTED}<`);
  return out;
}

/**
 * An error as a log field: its type, code and status, a failure's type and retry flag, its scrubbed text
 * and stack, and its cause the same way.
 */
function errorField(error: Error, depth: number): Record<string, unknown> {
  const { code, statusCode, type, nonRetryable, cause } = error as Error & Record<string, unknown>;
  const field: Record<string, unknown> = { type: error.name, message: scrubText(error.message) };
  if (typeof code === 'string' || typeof code === 'number') field.code = code;
  if (typeof statusCode === 'number') field.statusCode = statusCode;
  if (typeof type === 'string') field.failureType = type;
  if (typeof nonRetryable === 'boolean') field.nonRetryable = nonRetryable;
  if (error.stack) field.stack = scrubText(error.stack);
  if (cause !== undefined) field.cause = scrubValue(cause, depth + 1);
  return field;
}

const MAX_DEPTH = 8;

/**
 * A log field as it may be logged, through plain objects and arrays: personal-data keys redacted at any
 * depth, free text scrubbed (errors as {@link errorField}), symbols and functions dropped, other objects
 * by their own fields. A field that has a serializer (a request, say) is left to it, and its output is
 * scrubbed in turn ({@link createLogger}).
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
  // Any other object by its own fields too (a protobuf message of the SDK's, say): nothing reaches a line unwalked.
  return scrubFields(value as Record<string, unknown>, depth);
}

/** An object's fields, scrubbed; those named in `serialized` are left to their serializer. */
function scrubFields(
  value: Record<string, unknown>,
  depth: number,
  serialized?: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (isPersonalDataKey(key)) {
      out[key] = REDACTED;
      continue;
    }
    let item: unknown;
    try {
      item = value[key];
    } catch {
      // A getter that throws: the line is written without that field, never lost.
      out[key] = '[unreadable]';
      continue;
    }
    if ((ID_FIELDS.has(key) && typeof item === 'string') || serialized?.has(key)) out[key] = item;
    else out[key] = scrubValue(item, depth + 1);
  }
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
  serializers?: PinoOptions['serializers'];
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
  // A serializer's output is scrubbed like any field; errors were made fields already (scrubValue).
  const serializers = Object.fromEntries(
    Object.entries(options.serializers ?? {}).map(([key, serialize]) => [
      key,
      (value: unknown) => scrubValue(serialize(value)),
    ]),
  );
  const asIs = (value: unknown) => value;
  // Fields a serializer writes, which sees them after this logger's formatter: those given, and the request
  // and response of fastify's child loggers (its serializers for them, or ours for the request: api/main.ts).
  const serialized = new Set(['req', 'res', ...Object.keys(serializers)]);
  return pino(
    {
      name: options.name,
      level: (options.level ?? 'INFO').toLowerCase(),
      timestamp: pino.stdTimeFunctions.isoTime,
      base: { pid: process.pid },
      serializers: { err: asIs, error: asIs, ...serializers },
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => scrubFields(object, 0, serialized),
      },
      hooks: {
        // The message and the format's arguments are free text too; an error logged without a message
        // gives its own text as the message (pino's rule), scrubbed here.
        logMethod(args, method) {
          const [first, ...rest] = args as unknown[];
          const error = first instanceof Error ? first : (first as { err?: unknown } | null)?.err;
          if (typeof first === 'object' && rest.length === 0 && error instanceof Error) rest.push(error.message);
          const scrubbed = [first, ...rest].map((arg) => (typeof arg === 'string' ? scrubText(arg) : arg));
          method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    stream,
  );
}

/**
 * The logger for a process's own start and stop lines: at info, written whatever the level (`ECA_LOG_LEVEL=WARN`
 * keeps the SDK's and the workflows' lines quiet, not the line that says where the process serves).
 */
export function announcer(logger: PinoLogger): PinoLogger {
  return logger.isLevelEnabled('info') ? logger : logger.child({}, { level: 'info' });
}

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/** Where the SDK keeps the time a line was written at (nanoseconds): `LogTimestamp` of @temporalio/worker. */
const SDK_TIMESTAMP = Symbol.for('log_timestamp');

/**
 * The SDK's `Logger` (for `Runtime.install`) over a pino logger: the SDK's metadata become the line's fields,
 * and the time the SDK wrote the line at is `sdkTime` (forwarded lines reach the logger in batches).
 */
export function temporalLogger(logger: PinoLogger): Logger {
  const log = (level: LogLevel, message: string, meta?: LogMetadata): void => {
    const method = LEVELS[level] ?? 'info';
    if (!logger.isLevelEnabled(method)) return;
    const at: unknown = meta?.[SDK_TIMESTAMP];
    const sdkTime = typeof at === 'bigint' ? new Date(Number(at / 1_000_000n)).toISOString() : undefined;
    logger[method]({ ...meta, ...(sdkTime ? { sdkTime } : {}) }, message);
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
