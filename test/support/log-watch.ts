/**
 * Every line the engine logs during a test run, watched. The runtime's logger (the SDK's lines, the workflows'
 * and the activities') and the API's in its tests are the engine's own (runtime/logger.ts) at TRACE, writing
 * here. Each line is searched for the personal data of the applicants the tests use; the log call sites of
 * the code ({@link LOG_SITES}) that the run reached are counted. hooks.ts fails the run on a line with
 * personal data, and a whole run on a site it never reached.
 */
import { Writable } from 'node:stream';
import { APPLICATION_XML_EXAMPLE } from '../../eca/application.js';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Info } from '@temporalio/activity';
import { createLogger, temporalLogger } from '../../runtime/logger.js';
import type { PinoLogger } from '../../runtime/logger.js';

export interface LogSite {
  /** The file that holds the call. */
  file: string;
  /** The message it writes. */
  message: RegExp;
}

/**
 * The log call sites of the engine's code: where, and the message each writes. test/runtime/logger.test.ts
 * keeps the list equal to the code's calls, so a new site is watched from the day it is written, and a whole
 * run fails on one it never reached (hooks.ts): a site only a fault reaches has a test that forces it.
 */
export const LOG_SITES: readonly LogSite[] = [
  { file: 'activities/configuration-errors.ts', message: /^configuration error \(/ },
  { file: 'activities/configuration-errors.ts', message: / attempt\(s\) in a row\): / },
  { file: 'activities/deadline-policies.ts', message: /^a stored deadline is not valid/ },
  { file: 'activities/retention.ts', message: /^documents of closed workflows released$/ },
  { file: 'activities/retention.ts', message: /^the sweep of closed workflows failed/ },
  { file: 'activities/sweep-snapshot.ts', message: /^account not registered with the status sweep/ },
  { file: 'api/events.ts', message: /^event stream ended$/ },
  { file: 'api/problems.ts', message: /^the caller closed the connection before the answer$/ },
  { file: 'api/problems.ts', message: /^request timed out: / },
  { file: 'api/problems.ts', message: /^request failed: / },
  { file: 'api/webhooks.ts', message: /^webhook delivery not told of the deletion$/ },
  { file: 'workflows/application/deadlines.ts', message: /^deadline passed: escalated$/ },
  { file: 'workflows/application/events.ts', message: /^events not written$/ },
  { file: 'workflows/application/run.ts', message: /^lifecycle transition$/ },
  { file: 'workflows/application/staff-signals.ts', message: /^staff signal accepted$/ },
  { file: 'workflows/application/staff-signals.ts', message: /^staff signal (?!accepted)/ },
  { file: 'workflows/application/steps.ts', message: /^step blocked$/ },
  { file: 'workflows/application/workflow.ts', message: /^deadlines not watched$/ },
  { file: 'workflows/application/workflow.ts', message: /^continuing as new$/ },
  { file: 'workflows/plaintext-guard.ts', message: /^signal .* dropped: / },
  { file: 'workflows/smoke.ts', message: /^smoke check: worker answered, sleeping$/ },
  { file: 'workflows/sweep/workflow.ts', message: /^status sweep failed; the next slot runs as usual$/ },
  { file: 'workflows/webhooks/workflow.ts', message: /^webhook delivery gave up; pausing the endpoint$/ },
];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The personal data of the example application every test's applications start from (eca/application.ts). */
function examplePersonalData(): RegExp[] {
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
  readonly personal = examplePersonalData();
  readonly findings: LogFinding[] = [];
  /** Lines read per site, by the site's index in LOG_SITES: a site with none was not reached. */
  readonly counts: number[] = [];
  lines = 0;

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    for (const line of String(chunk).split('\n')) {
      if (line) this.#read(line);
    }
    done();
  }

  #read(line: string): void {
    this.lines++;
    let message = '';
    try {
      const { msg } = JSON.parse(line) as { msg?: unknown };
      message = typeof msg === 'string' ? msg : '';
    } catch {
      this.findings.push({ found: 'a line that is not JSON', message: line.slice(0, 80) });
    }
    LOG_SITES.forEach((site, index) => {
      if (site.message.test(message)) this.counts[index] = (this.counts[index] ?? 0) + 1;
    });
    for (const pattern of this.personal) {
      if (pattern.test(line) && this.findings.length < 100) this.findings.push({ found: String(pattern), message });
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

/** An activity environment whose `Context.current().log` is the engine's logger, to the watch. */
export function watchedActivityEnvironment(info?: Partial<Info>): MockActivityEnvironment {
  return new MockActivityEnvironment(info, { logger: temporalLogger(watchedLogger('eca-worker')) });
}

/** How many lines of the site (its file and its message, as listed) the watch has read: a test compares two counts. */
export function siteLines(file: string, message: RegExp): number {
  const index = LOG_SITES.findIndex((site) => site.file === file && String(site.message) === String(message));
  if (index < 0) throw new Error(`no log site ${file} ${String(message)}`);
  return logWatch.counts[index] ?? 0;
}
