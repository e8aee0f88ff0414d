import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';
import { buildArchive, sha1Hex } from '../../../eca/archive.js';
import { EcaRequestError } from '../../../eca/errors.js';
import { readArchive } from '../../../simulator/formats/archive.js';

function pdf(seed: number, size: number): Uint8Array {
  const data = new Uint8Array(size);
  for (let index = 0; index < size; index++) data[index] = (index * seed + 7) % 251;
  return data;
}

function throwsRequest(fn: () => unknown, parameter: string): Promise<void> {
  return assert.rejects(
    async () => {
      await fn();
    },
    (error: unknown) => error instanceof EcaRequestError && error.parameter === parameter,
  );
}

describe('eca/archive: ZIP with SHA-1 digests', function () {
  it('writes the XML and attachments so that fflate reads them back, and the digests match node:crypto', async function () {
    const attachments = [
      { fileName: 'W8BEN.pdf', data: pdf(3, 70_000) },
      { fileName: 'Agreement 3024.pdf', data: pdf(5, 12) },
      { fileName: 'empty.pdf', data: new Uint8Array(0) },
    ];
    const xml = '<?xml version="1.0"?><AcctMgmtRequests/>';
    const built = await buildArchive({ xml: { fileName: 'request.xml', content: xml }, attachments });

    const entries = unzipSync(built.zip);
    assert.deepEqual(Object.keys(entries).sort(), ['Agreement 3024.pdf', 'W8BEN.pdf', 'empty.pdf', 'request.xml']);
    assert.equal(new TextDecoder().decode(entries['request.xml']), xml);
    for (const [index, attachment] of attachments.entries()) {
      const stored = entries[attachment.fileName];
      assert.ok(stored);
      assert.deepEqual(stored, attachment.data);
      const expected = createHash('sha1').update(stored).digest('hex');
      assert.deepEqual(built.attachments[index], {
        fileName: attachment.fileName,
        sha1: expected,
        length: attachment.data.byteLength,
      });
    }
    assert.ok(built.zip.byteLength < 70_000, 'attachments are compressed');
  });

  it('sha1Hex is lower-case hex SHA-1', function () {
    assert.equal(sha1Hex(new TextEncoder().encode('abc')), 'a9993e364706816aba3e25717850c26c9cd0d89d');
  });

  it('readArchive finds the one .xml file and every file entry', async function () {
    const built = await buildArchive({
      xml: { fileName: 'Application.XML', content: '<Applications/>' },
      attachments: [{ fileName: 'form.pdf', data: pdf(1, 10) }],
    });
    const read = readArchive(built.zip);
    assert.deepEqual(read.xml, { fileName: 'Application.XML', content: '<Applications/>' });
    assert.deepEqual(read.xmlFileNames, ['Application.XML']);
    assert.deepEqual(read.files.get('form.pdf'), pdf(1, 10));
  });

  it('refuses duplicate, unsafe and .xml attachment names, naming the parameter', async function () {
    const xml = { fileName: 'a.xml', content: '<a/>' };
    const data = new Uint8Array([1]);
    await throwsRequest(
      () => buildArchive({ xml, attachments: [{ fileName: '../x.pdf', data }] }),
      'attachments[0].fileName',
    );
    await throwsRequest(
      () => buildArchive({ xml, attachments: [{ fileName: 'dir/x.pdf', data }] }),
      'attachments[0].fileName',
    );
    await throwsRequest(
      () => buildArchive({ xml, attachments: [{ fileName: 'dir\\x.pdf', data }] }),
      'attachments[0].fileName',
    );
    await throwsRequest(
      () => buildArchive({ xml, attachments: [{ fileName: '..', data }] }),
      'attachments[0].fileName',
    );
    await throwsRequest(() => buildArchive({ xml, attachments: [{ fileName: '', data }] }), 'attachments[0].fileName');
    await throwsRequest(
      () =>
        buildArchive({
          xml,
          attachments: [
            { fileName: 'x.pdf', data },
            { fileName: 'X.PDF', data },
          ],
        }),
      'attachments[1].fileName',
    );
    await throwsRequest(
      () => buildArchive({ xml, attachments: [{ fileName: 'A.xml', data }] }),
      'attachments[0].fileName',
    );
    await throwsRequest(() => buildArchive({ xml: { fileName: 'a.txt', content: '<a/>' } }), 'xml.fileName');
    await throwsRequest(() => buildArchive({ xml: { fileName: 'a.xml', content: ' ' } }), 'xml.content');
  });

  it('reports no XML when an archive holds none or several, and refuses what is not a ZIP', async function () {
    const built = await buildArchive({ xml: { fileName: 'a.xml', content: '<a/>' } });
    assert.equal(readArchive(built.zip).xml?.fileName, 'a.xml');
    const { zipSync } = await import('fflate');
    const two = zipSync({ 'a.xml': new Uint8Array([60, 97, 47, 62]), 'b.xml': new Uint8Array([60, 98, 47, 62]) });
    const read = readArchive(two);
    assert.equal(read.xml, undefined);
    assert.deepEqual(read.xmlFileNames.sort(), ['a.xml', 'b.xml']);
    assert.throws(
      () => readArchive(new Uint8Array([1, 2, 3])),
      (error: unknown) => error instanceof EcaRequestError,
    );
  });

  it('refuses archives that inflate beyond the limit', async function () {
    const built = await buildArchive({
      xml: { fileName: 'a.xml', content: '<a/>' },
      attachments: [{ fileName: 'zeros.pdf', data: new Uint8Array(100_000) }],
    });
    assert.throws(
      () => readArchive(built.zip, { maxUncompressedBytes: 50_000 }),
      (error: unknown) => error instanceof EcaRequestError && /size limit/.test(error.message),
    );
  });
});
