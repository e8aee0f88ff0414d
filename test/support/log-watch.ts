/**
 * Every line the engine logs during a test run, watched. The runtime's logger (the SDK's lines, the workflows'
 * and the activities') and the API's in its tests are the engine's own (runtime/logger.ts) at TRACE, writing
 * here; so is the output of every process a test starts (scripts/processes/child.ts). Each line is searched for
 * the personal data of the applicants the tests use, and hooks.ts fails the file that logged one.
 */
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import type * as EcaApplication from '../../eca/application.js';
import type * as TemporalTesting from '@temporalio/testing';
import type { Info } from '@temporalio/activity';
import { createLogger, temporalLogger } from '../../runtime/logger.js';
import type { PinoLogger } from '../../runtime/logger.js';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The personal data of the example application every test's applications start from (eca/application.ts),
 * read when the first line is: the XML service's module is loaded then, not for a file that logs nothing.
 */
function examplePersonalData(): RegExp[] {
  const { APPLICATION_XML_EXAMPLE } = createRequire(import.meta.url)(
    '../../eca/application.js',
  ) as typeof EcaApplication;
  const value = (pattern: RegExp) => pattern.exec(APPLICATION_XML_EXAMPLE)?.[1] ?? '';
  const fields = [
    value(/<Name first="([^"]+)"/),
    value(/<Name [^>]*last="([^"]+)"/),
    value(/<Email email="([^"]+)"/),
    value(/<DOB>([^<]+)</),
    value(/DriversLicense="([^"]+)"/),
    value(/street_1="([^"]+)"/),
  ];
  // Short values (`Doe`) stand alone, bounded by what cannot be base64: the SDK's TRACE lines carry payloads
  // in base64, where three letters between a `+` and a `/` are chance, not a name.
  return fields.map((field) => new RegExp(`(?<![A-Za-z0-9+/=])${escape(field)}(?![A-Za-z0-9+/=])`));
}

export interface LogFinding {
  /** What was found (the pattern, not the value). */
  found: string;
  /** The line's message, for the report. */
  message: string;
}

class LogWatch extends Writable {
  #personal: RegExp[] | undefined;
  /** What each line is searched for: the example's fields and every applicant registered since. */
  get personal(): RegExp[] {
    return (this.#personal ??= examplePersonalData());
  }
  #findings: LogFinding[] = [];
  /** What `count` asked for: each counts the engine's lines whose message matches its pattern. */
  readonly #counters = new Set<{ pattern: RegExp; seen: number }>();

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    for (const line of String(chunk).split('\n')) {
      if (line) this.#read(line, true);
    }
    done();
  }

  /**
   * Reads a process's output (its own lines, or a server's that are not JSON): searched for personal data like
   * the engine's lines; found, it is reported with the process's name.
   */
  readOutput(name: string, text: string): void {
    for (const line of text.split('\n')) {
      if (line) this.#read(line, false, name);
    }
  }

  /** Counts the engine's lines whose message matches `pattern` from now on, for a test to assert. */
  count(pattern: RegExp): { readonly seen: number } {
    const counter = { pattern, seen: 0 };
    this.#counters.add(counter);
    return counter;
  }

  /** The findings since the last call. */
  takeFindings(): LogFinding[] {
    return this.#findings.splice(0);
  }

  /** How many findings are waiting: a test compares two counts. */
  get pending(): number {
    return this.#findings.length;
  }

  #read(line: string, json: boolean, source?: string): void {
    let message = source ? `${source}: ${line.slice(0, 80)}` : '';
    if (json) {
      try {
        const { msg } = JSON.parse(line) as { msg?: unknown };
        message = typeof msg === 'string' ? msg : '';
        for (const counter of this.#counters) if (counter.pattern.test(message)) counter.seen++;
      } catch {
        this.#findings.push({ found: 'a line that is not JSON', message: line.slice(0, 80) });
      }
    }
    for (const pattern of this.personal) {
      if (pattern.test(line) && this.#findings.length < 100) this.#findings.push({ found: String(pattern), message });
    }
  }
}

export const logWatch = new LogWatch();

/** Watches for an applicant's fields too (test/support/history-privacy.ts registers each applicant it makes). */
export function watchPersonalData(values: readonly string[]): void {
  for (const value of values) logWatch.personal.push(new RegExp(escape(value)));
}

/** The engine's logger at TRACE, writing to the watch: for the API's tests. */
export function watchedLogger(name: string): PinoLogger {
  return createLogger({ name, level: 'TRACE', format: 'json', destination: logWatch });
}

/**
 * An activity environment whose `Context.current().log` is the engine's logger, to the watch. Its package
 * (which loads Temporal's worker) is loaded on first call: the root hook loads this module for every file.
 */
export function watchedActivityEnvironment(info?: Partial<Info>): TemporalTesting.MockActivityEnvironment {
  const testing = createRequire(import.meta.url)('@temporalio/testing') as typeof TemporalTesting;
  return new testing.MockActivityEnvironment(info, { logger: temporalLogger(watchedLogger('eca-worker')) });
}
