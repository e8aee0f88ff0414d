/**
 * Personal data made to be found, and the checks that an exported history holds none of it in the
 * clear: shared by the security end-to-end test and the cluster test.
 */
import assert from 'node:assert/strict';
import { applicationXml } from './engine.js';
import { watchPersonalData } from './log-watch.js';

/**
 * The patch ids of the engine's workflows (docs/architecture.md, "Changing workflow code"): none at 2.0. A patch
 * taken after it lists its id here, so that its marker (written in the clear) passes the checks.
 */
const PATCH_IDS: readonly string[] = [];

export interface Applicant {
  first: string;
  last: string;
  email: string;
  licence: string;
  taxId: string;
}

/** An applicant whose every field is unique to the scenario and run, so that a search for it cannot miss. */
export function applicant(scenario: string, run: string): Applicant {
  const tag = `${scenario.replace(/-/g, '')}${run}`;
  const digits = String(parseInt(run, 16) % 10_000).padStart(4, '0');
  const person = {
    first: `Ottoline${tag}`,
    last: `Quarrington${tag}`,
    email: `ottoline.${tag}@mailbox.example`,
    licence: `DL${tag.toUpperCase()}`,
    taxId: `912-${digits.slice(0, 2)}-${digits}`,
  };
  // No log line of the run may hold them either (log-watch.ts).
  watchPersonalData(personalFields(person));
  return person;
}

/** The fields of an applicant as they would be searched for. */
export function personalFields(person: Applicant): string[] {
  return [person.first, person.last, person.email, person.licence, person.taxId];
}

export function personalXml(externalId: string, person: Applicant): string {
  return applicationXml(externalId, (xml) =>
    xml
      .replaceAll('email="jane.doe@example.com"', `email="${person.email}"`)
      .replace('<Name first="Jane" last="Doe"/>', `<Name first="${person.first}" last="${person.last}"/>`)
      .replace(
        '<Identification DriversLicense="D1234567" IssuingCountry="USA" citizenship="USA"/>',
        `<Identification DriversLicense="${person.licence}" IssuingCountry="USA" citizenship="USA"/>\n` +
          `          <TaxResidencies><TaxResidency country="USA" TINType="SSN" TIN="${person.taxId}"/></TaxResidencies>`,
      ),
  );
}

/** Every string in a JSON document, plus what its base64-looking strings decode to. */
export function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    out.push(value);
    if (value.length >= 8 && /^[A-Za-z0-9+/]+={0,2}$/.test(value))
      out.push(Buffer.from(value, 'base64').toString('latin1'));
  } else if (Array.isArray(value)) value.forEach((item) => strings(item, out));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((item) => strings(item, out));
  return out;
}

export interface JsonPayload {
  metadata?: Record<string, string>;
  data?: unknown;
}

/** Payloads of an exported history, with where they are; search attributes are left out (indexed in plaintext by design). */
export function payloadsOf(value: unknown, path = '', out: { path: string; payload: JsonPayload }[] = []) {
  if (Array.isArray(value)) value.forEach((item, index) => payloadsOf(item, `${path}[${index}]`, out));
  else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const metadata = record.metadata as Record<string, unknown> | undefined;
    if (metadata && typeof metadata === 'object' && 'encoding' in metadata) {
      out.push({ path, payload: record });
      return out;
    }
    for (const [key, child] of Object.entries(record)) {
      if (key === 'searchAttributes' || key === 'indexedFields') continue;
      payloadsOf(child, `${path}.${key}`, out);
    }
  }
  return out;
}

export const decodeText = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString('utf8');

/**
 * Asserts that a history exported with `temporal workflow show --output json` holds none of `needles`
 * (personal data, secrets) in any string or decoded base64, and that every payload is ciphertext, the
 * SDK's patch markers aside (which must hold only a known patch id). Answers the payloads found.
 */
export function assertPrivateHistory(
  label: string,
  history: { events: unknown[] },
  needles: string[],
  keyId?: string,
): Array<{ path: string; payload: JsonPayload }> {
  const haystack = strings(history).join('\n');
  for (const needle of needles) {
    assert.ok(!haystack.includes(needle), `${label}: "${needle.slice(0, 4)}…" is readable in the exported history`);
  }
  const payloads = payloadsOf(history);
  for (const { path, payload } of payloads) {
    // The SDK writes a patch marker's id itself, outside the data converter: the one payload left plain.
    // Only the ids listed in PATCH_IDS may appear (a code name, never data).
    if (path.includes('markerRecordedEventAttributes.details.patch-data')) {
      const marker = JSON.parse(decodeText(typeof payload.data === 'string' ? payload.data : undefined)) as {
        id: string;
      };
      assert.deepEqual(Object.keys(marker).sort(), ['deprecated', 'id'], `${label}: unexpected marker at ${path}`);
      assert.ok(PATCH_IDS.includes(marker.id), `${label}: unexpected patch marker ${marker.id} at ${path}`);
      continue;
    }
    // Every other payload is encrypted. The plain bookkeeping the SDK writes beside a local activity's
    // result would fail here: the engine has none (workflows/application/deadlines.ts says why).
    assert.equal(decodeText(payload.metadata?.encoding), 'binary/encrypted', `${label}: plaintext payload at ${path}`);
    if (keyId) assert.equal(decodeText(payload.metadata?.['encryption-key-id']), keyId, 'the newest key encrypts');
  }
  return payloads;
}
