/** The firm-scoped workflow and schedule ids (domain/workflow-ids.ts): injective across firms, and read back. */
import assert from 'node:assert/strict';
import {
  applicationWorkflowId,
  csidOfWorkflowId,
  dailyDocumentsScheduleId,
  documentRetentionWorkflowId,
  documentsWorkflowId,
  escapeIdPart,
  maintenanceWorkflowId,
  sweepWorkflowId,
  webhookDeliveryWorkflowId,
} from '../../../domain/workflow-ids.js';
import { fc, fuzzParameters } from '../../support/fuzz.js';

/** Every firm-scoped id of one firm and its parts. */
function idsOf(csid: string, a: string, b: string) {
  return [
    { kind: 'application', id: applicationWorkflowId(csid, a) },
    { kind: 'documents-retention', id: documentRetentionWorkflowId(csid, a) },
    { kind: 'maintenance', id: maintenanceWorkflowId(csid, a, b) },
    { kind: 'documents', id: documentsWorkflowId(csid, a) },
    { kind: 'daily-documents', id: dailyDocumentsScheduleId(csid) },
    { kind: 'status-sweep', id: sweepWorkflowId(csid) },
  ];
}

/** Strings made of the characters that matter here (separators, escapes and their pieces), and any others. */
const part = fc.oneof(
  fc.string({ unit: fc.constantFrom('-', ':', '%', '2', '5', '3', 'A', 'a', 'X', '1'), maxLength: 8 }),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 4 }),
);

describe('workflow ids (domain/workflow-ids)', function () {
  it('writes the documented forms: `<kind>:<csid>:<rest>`, parts before the last escaped', function () {
    assert.equal(applicationWorkflowId('CSID1', 'client-42'), 'application:CSID1:client-42');
    assert.equal(documentRetentionWorkflowId('CSID1', 'client-42'), 'documents-retention:CSID1:client-42');
    assert.equal(maintenanceWorkflowId('CSID1', 'U1234567', 'k-1:2'), 'maintenance:CSID1:U1234567:k-1:2');
    assert.equal(documentsWorkflowId('CSID1', '2026-11-28'), 'documents:CSID1:2026-11-28');
    assert.equal(dailyDocumentsScheduleId('CSID1'), 'daily-documents:CSID1');
    assert.equal(sweepWorkflowId('CSID1'), 'status-sweep:CSID1');
    assert.equal(escapeIdPart('a%b:c%3A'), 'a%25b%3Ac%253A');
    assert.equal(applicationWorkflowId('a:b%c', 'x:y%z'), 'application:a%3Ab%25c:x:y%z');
    assert.equal(maintenanceWorkflowId('c:1', 'U:1%', 'k'), 'maintenance:c%3A1:U%3A1%25:k');
    // Webhook deliveries keep their id (an endpoint id is unique across firms).
    assert.equal(webhookDeliveryWorkflowId('ep-1'), 'webhook-delivery-ep-1');
  });

  it('firm `A-X` with `1` and firm `A` with `X-1` get different ids', function () {
    assert.notEqual(applicationWorkflowId('A-X', '1'), applicationWorkflowId('A', 'X-1'));
    assert.equal(applicationWorkflowId('A-X', '1'), 'application:A-X:1');
    assert.equal(applicationWorkflowId('A', 'X-1'), 'application:A:X-1');
    assert.notEqual(documentRetentionWorkflowId('A-X', '1'), documentRetentionWorkflowId('A', 'X-1'));
    assert.notEqual(documentsWorkflowId('A-X', '1'), documentsWorkflowId('A', 'X-1'));
    assert.equal(csidOfWorkflowId(applicationWorkflowId('A-X', '1')), 'A-X');
    assert.equal(csidOfWorkflowId(applicationWorkflowId('A', 'X-1')), 'A');
  });

  it('CSIDs holding `:` or `%` cannot take another firm’s id', function () {
    // Unescaped, `A:B` + `C` and `A` + `B:C` would both be `application:A:B:C`.
    assert.notEqual(applicationWorkflowId('A:B', 'C'), applicationWorkflowId('A', 'B:C'));
    // `%3A` written by a firm is not the escape of another's `:`.
    assert.notEqual(applicationWorkflowId('A%3AB', 'C'), applicationWorkflowId('A:B', 'C'));
    assert.notEqual(applicationWorkflowId('A%25', 'C'), applicationWorkflowId('A%', 'C'));
    for (const csid of ['A:B', 'A%3AB', 'A%', 'A%25', ':', '%', '%%3A:', 'A-X']) {
      for (const { kind, id } of idsOf(csid, 'x:1', 'k:%')) assert.equal(csidOfWorkflowId(id), csid, `${kind} ${id}`);
    }
  });

  it('maintenance: the CSID, the account and the key are each read back, whatever `-` or `:` they hold', function () {
    const requests: Array<[string, string, string]> = [
      ['A', 'U1-K', 'x'],
      ['A', 'U1', 'K-x'],
      ['A-U1', 'K', 'x'],
      ['A', 'U1:K', 'x'],
      ['A', 'U1', 'K:x'],
      ['A:U1', 'K', 'x'],
      ['A', 'U1234567', '7d2c1b3e-1a2b-4c5d-8e9f-0a1b2c3d4e5f'],
    ];
    const ids = requests.map(([csid, account, key]) => maintenanceWorkflowId(csid, account, key));
    assert.equal(new Set(ids).size, requests.length, ids.join(' '));
    for (const [index, id] of ids.entries()) assert.equal(csidOfWorkflowId(id), requests[index]![0]);
  });

  it('reads no CSID out of other ids', function () {
    for (const id of [
      'application-A-1',
      'status-sweep-A',
      'webhook-delivery-ep-1',
      'application',
      'constructor:A:1',
      'application:A',
      'maintenance:A:U1',
      'application:A%2:1',
      'application:A%3a:1',
      '',
    ]) {
      assert.equal(csidOfWorkflowId(id), undefined, id);
    }
    for (const { kind, id } of idsOf('A-X', '1', 'k')) assert.ok(id.startsWith(`${kind}:`), kind);
  });

  it('property: no two (kind, CSID, parts) give the same id, and the CSID reads back from each', function () {
    fc.assert(
      fc.property(part, part, part, part, part, part, (csid1, a1, b1, csid2, a2, b2) => {
        const first = idsOf(csid1, a1, b1);
        const second = idsOf(csid2, a2, b2);
        for (const [index, one] of first.entries()) {
          assert.equal(csidOfWorkflowId(one.id), csid1);
          for (const other of second) {
            // Kinds of one or two parts: which parts an id depends on.
            const same =
              one.kind === other.kind &&
              csid1 === csid2 &&
              (['daily-documents', 'status-sweep'].includes(one.kind) ||
                (a1 === a2 && (one.kind !== 'maintenance' || b1 === b2)));
            assert.equal(one.id === other.id, same, `${one.id} vs ${other.id}`);
          }
          for (const [later, other] of first.entries()) if (later > index) assert.notEqual(one.id, other.id);
        }
      }),
      fuzzParameters('workflow ids', 2000),
    );
  });

  it('property: the CSID read back from a pair of CSIDs that prefix one another with `-`', function () {
    fc.assert(
      fc.property(part, part, part, (csid, suffix, externalId) => {
        const longer = `${csid}-${suffix}`;
        assert.notEqual(
          applicationWorkflowId(longer, externalId),
          applicationWorkflowId(csid, `${suffix}-${externalId}`),
        );
        assert.equal(csidOfWorkflowId(applicationWorkflowId(longer, externalId)), longer);
      }),
      fuzzParameters('workflow ids of prefixing CSIDs', 500),
    );
  });
});
