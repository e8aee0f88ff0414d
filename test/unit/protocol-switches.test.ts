/**
 * Outside the brokerage's port and adapters (brokerage/), the protocol libraries (eca/, webapi/) and the
 * simulator, no code compares a protocol value: a firm's adapter is picked in one place
 * (runtime/firm-brokerages.ts `brokerageFor`, by a table, not a comparison) and a caller never asks which it
 * holds. The switches that remain are listed here with why, so that none is added unseen and each one removed
 * is taken off the list.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The engine's folders above the port. */
const ENGINE = ['activities', 'api', 'client', 'codec', 'domain', 'runtime', 'workers', 'workflows'];
/** A protocol value compared, or chosen between: `=== 'webapi'`, `'xml' !==`, `case 'xml'`, `? 'xml' :`. */
const SWITCH = /[!=]==\s*'(?:xml|webapi)'|'(?:xml|webapi)'\s*[!=]==|case\s+'(?:xml|webapi)'|\?\s*'(?:xml|webapi)'\s*:/g;

/** The switches left, by file: how many, and why they are still there. */
const LEFT: Record<string, { count: number; why: string }> = {
  'activities/maintenance.ts': { count: 1, why: 'a maintenance request is sent as its protocol’s body' },
  'api/firm.ts': { count: 3, why: 'POST /v1/maintenance-requests takes an XML body or a Web API member’s JSON' },
  'client/maintenance.ts': { count: 2, why: 'a maintenance request is started with its protocol’s body' },
  'client/cli/maintenance.ts': { count: 1, why: 'the CLI tells a maintenance body’s protocol by its shape' },
  'runtime/firm-settings.ts': { count: 2, why: 'a firm’s settings are checked for the keys of its protocol' },
};

function switchesByFile(): Map<string, number> {
  const found = new Map<string, number>();
  for (const folder of ENGINE) {
    for (const file of readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const path = `${folder}/${file}`;
      const count = readFileSync(join(ROOT, path), 'utf8').match(SWITCH)?.length ?? 0;
      if (count > 0) found.set(path, count);
    }
  }
  return found;
}

describe('protocol switches outside the brokerage port', function () {
  it('are only the ones listed, each as many times as listed', function () {
    const found = Object.fromEntries(switchesByFile());
    const listed = Object.fromEntries(Object.entries(LEFT).map(([file, { count }]) => [file, count]));
    assert.deepEqual(
      found,
      listed,
      'a protocol is compared outside brokerage/: pick the adapter through the port instead, or, when a switch was removed, take it off LEFT',
    );
  });

  it('would be found in each form a switch takes', function () {
    const forms = [
      "if (protocol === 'webapi') {",
      "settings.protocol !== 'xml'",
      "'webapi' === protocol",
      "case 'xml':",
      "made ? 'xml' : 'webapi'",
    ];
    for (const form of forms) assert.equal(form.match(SWITCH)?.length, 1, form);
    assert.equal(
      "const PROTOCOLS = ['xml', 'webapi'] as const;".match(SWITCH),
      null,
      'a list of protocols is no switch',
    );
  });
});
