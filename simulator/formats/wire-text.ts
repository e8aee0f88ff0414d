/**
 * The wire forms of dates and file names that the spec prescribes, in UTC unless a time zone offset is given (the
 * setting `service-time-zone`: see serviceTimeZones).
 */

function parts(epochMs: number) {
  const iso = new Date(epochMs).toISOString(); // 2024-05-06T07:08:09.123Z
  return {
    y: iso.slice(0, 4),
    mo: iso.slice(5, 7),
    d: iso.slice(8, 10),
    time: iso.slice(11, 19),
    tenth: iso.slice(20, 21),
  };
}

const HOUR_MS = 3_600_000;

/** Where the service's clock stands against UTC: its timestamps, and the days of its dates. */
export interface ServiceTimeZones {
  /** Added to an instant before it is written as a timestamp. */
  timestampOffsetMs: number;
  /** Added to an instant before its day is taken: the day an account was created, read against startDate/endDate. */
  dateOffsetMs: number;
}

/**
 * The service's time zones. The spec shows none, and never says its timestamps and its dates share one: under
 * `service-time-zone` the service writes timestamps in UTC+14 and reads startDate/endDate as days of UTC−12, the two
 * zones farthest from UTC on either side, 26 hours apart. UTC for both otherwise.
 */
export function serviceTimeZones(unpromised: ReadonlySet<string>): ServiceTimeZones {
  return unpromised.has('service-time-zone')
    ? { timestampOffsetMs: 14 * HOUR_MS, dateOffsetMs: -12 * HOUR_MS }
    : { timestampOffsetMs: 0, dateOffsetMs: 0 };
}

/** `YYYY-MM-DD HH:MM:SS`, the default response timestamp, `offsetMs` from UTC. */
export function timestamp(epochMs: number, offsetMs = 0): string {
  const p = parts(epochMs + offsetMs);
  return `${p.y}-${p.mo}-${p.d} ${p.time}`;
}

/** `YYYY-MM-DD HH:MM:SS.S` (registration task completion, account opening). */
export function timestampTenths(epochMs: number): string {
  const p = parts(epochMs);
  return `${p.y}-${p.mo}-${p.d} ${p.time}.${p.tenth}`;
}

/** `YYYY/MM/DD HH:MM:SS` (Execution_Date of the documents report). */
export function reportTimestamp(epochMs: number): string {
  const p = parts(epochMs);
  return `${p.y}/${p.mo}/${p.d} ${p.time}`;
}

/** `yyyy-mm-dd`, the day `offsetMs` from UTC. */
export function isoDate(epochMs: number, offsetMs = 0): string {
  return new Date(epochMs + offsetMs).toISOString().slice(0, 10);
}

function compactDate(epochMs: number): string {
  return isoDate(epochMs).replaceAll('-', '');
}

function pad4(n: number): string {
  return String(n % 10_000).padStart(4, '0');
}

/** The `####_####` part: batch number then sequence number within the batch. */
function numbers(batch: number, sequence: number): string {
  return `${pad4(batch)}_${pad4(sequence)}`;
}

/** `<FirmName>_YYYY-MM-DD_####_####.xml.imported` */
export function requestFileName(firmName: string, epochMs: number, batch: number, sequence: number): string {
  return `${firmName}_${isoDate(epochMs)}_${numbers(batch, sequence)}.xml.imported`;
}

/** `<FirmName>_YYYYMMDD_####_####.xml.report` */
export function reportFileName(firmName: string, epochMs: number, batch: number, sequence: number): string {
  return `${firmName}_${compactDate(epochMs)}_${numbers(batch, sequence)}.xml.report`;
}

/** `<FirmName>_YYYYMMDD_####_####.xml` (response of update). */
export function updateResponseFileName(firmName: string, epochMs: number, batch: number, sequence: number): string {
  return `${firmName}_${compactDate(epochMs)}_${numbers(batch, sequence)}.xml`;
}

/** `DD-Mon-YYYY`, the form of the report's ECA_XML_XSD_Version. */
export const XSD_VERSION = '15-Mar-2024';

/** Parses `yyyy-mm-dd` as a UTC day; undefined when the text is not such a date. */
export function parseIsoDate(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

const DAY_MS = 24 * HOUR_MS;

/**
 * The name getFileDetails gives a create's response file under `file-details-other-name`: the spec's pattern
 * (`<FirmName>_YYYYMMDD_####_####.xml.report`), with the numbers of the name create gave and the next day's date, so
 * that it is never the name of any create's file (each `####_####` belongs to one file). The name itself otherwise.
 */
export function fileDetailsResponseName(responseFile: string, other: boolean): string {
  const match = /^(.*)_(\d{4})(\d{2})(\d{2})_(\d{4}_\d{4}\.xml\.report)$/.exec(responseFile);
  if (!other || !match) return responseFile;
  const [, firm, y, mo, d, rest] = match as unknown as [string, string, string, string, string, string];
  const next = isoDate(Date.UTC(Number(y), Number(mo) - 1, Number(d)) + DAY_MS).replaceAll('-', '');
  return `${firm}_${next}_${rest}`;
}

/**
 * The service's own name for the request file of an update (`update-file-unlisted`): the spec's request file pattern
 * (`<FirmName>_YYYY-MM-DD_####_####.xml.imported`) with the date and numbers of its response file
 * `<FirmName>_YYYYMMDD_####_####.xml`, a name the caller never saw.
 */
export function importedRequestFileName(responseFile: string): string {
  const match = /^(.*)_(\d{4})(\d{2})(\d{2})_(\d{4}_\d{4})\.xml$/.exec(responseFile);
  if (!match) return `${responseFile}.imported`;
  const [, firm, y, mo, d, numbers] = match as unknown as [string, string, string, string, string, string];
  return `${firm}_${y}-${mo}-${d}_${numbers}.xml.imported`;
}
