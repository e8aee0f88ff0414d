/** The wire forms of dates and file names that the spec prescribes, all in UTC. */

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

/** `YYYY-MM-DD HH:MM:SS`, the default response timestamp. */
export function timestamp(epochMs: number): string {
  const p = parts(epochMs);
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

/** `yyyy-mm-dd`. */
export function isoDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
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
