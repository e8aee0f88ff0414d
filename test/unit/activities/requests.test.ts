/**
 * Reading getAmRequestStatus as the spec shapes it ("each keyed by a request type; each holds `data`
 * ... and `files`"): a request is matched on its response file name, and nothing is attributed that
 * the answer does not tie to that file alone.
 */
import assert from 'node:assert/strict';
import { requestByFile } from '../../../activities/request-status.js';
import { earlierRequest } from '../../../activities/update-sender.js';
import type { AmRequestStatusResponse } from '../../../eca/index.js';

type Status = 'PROCESSED' | 'REJECTED' | 'PENDING';

/** Update response files as the spec names them (`<FirmName>_YYYYMMDD_####_####.xml`). */
const [A, B, OLD, NEW, X, Y] = [1, 2, 3, 4, 5, 6].map((n) => `DemoFirm_20260105_000${n}_000${n}.xml`) as [
  string,
  string,
  string,
  string,
  string,
  string,
];

function listed(...groups: Array<{ files: string[]; statuses: Status[] }>): AmRequestStatusResponse {
  return {
    raw: null,
    requests: groups.map(({ files, statuses }) => ({
      isError: false,
      extra: {},
      requests: [
        {
          type: 'T',
          files,
          extra: {},
          data: statuses.map((status) => ({ status: { raw: status, known: true, status }, extra: {} })),
        },
      ],
    })),
  };
}

describe('getAmRequestStatus read by response file name', function () {
  it('decides from the group that lists the file alone', function () {
    assert.deepEqual(requestByFile(listed({ files: [A], statuses: ['PROCESSED'] }), A), {
      decided: true,
      processed: true,
    });
    const rejected = requestByFile(
      listed({ files: [OLD], statuses: ['PROCESSED'] }, { files: [A], statuses: ['REJECTED'] }),
      A,
    );
    assert.equal(rejected.decided && !rejected.processed, true);
    assert.deepEqual(requestByFile(listed({ files: [A], statuses: ['PENDING'] }), A), {
      decided: false,
      status: 'PENDING',
    });
    assert.deepEqual(requestByFile(listed({ files: [B], statuses: ['PROCESSED'] }), A), {
      decided: false,
      status: 'not listed yet (the account lists 1 other request(s))',
    });
  });

  it('does not attribute a group that lists another response file too (the spec ties no status to a file)', function () {
    const grouped = requestByFile(listed({ files: [OLD, A], statuses: ['REJECTED', 'PROCESSED'] }), A);
    assert.equal(grouped.decided, false);
    const twice = requestByFile(
      listed({ files: [A], statuses: ['PROCESSED'] }, { files: [A], statuses: ['REJECTED'] }),
      A,
    );
    assert.equal(twice.decided, false, 'a response file listed by two groups');
  });

  it("reads a group that lists the firm's own file names beside the response file (names a firm reuses)", function () {
    const withArchive = listed(
      { files: [OLD, 'update.xml'], statuses: ['PROCESSED'] },
      { files: [A, 'update.xml', '8001_proof.pdf'], statuses: ['REJECTED'] },
    );
    const rejected = requestByFile(withArchive, A);
    assert.equal(rejected.decided && !rejected.processed, true);
    assert.deepEqual(requestByFile(withArchive, OLD), { decided: true, processed: true });
  });
});

describe('the request of an earlier attempt', function () {
  it('adopts exactly one new file, refuses to choose among several, and takes nothing new for nothing', async function () {
    let looks = 0;
    const list = (files: string[]) => () => {
      looks++;
      return Promise.resolve(files);
    };
    assert.deepEqual(await earlierRequest(list([OLD, NEW]), [OLD]), {
      accepted: true,
      responseFile: NEW,
      recovered: true,
    });
    const ambiguous = await earlierRequest(list([OLD, X, Y]), [OLD]);
    assert.deepEqual(ambiguous, { accepted: true, recovered: true });
    // The firm's own names (reused, or new like a PDF's) tell no request apart: only response files count.
    const withArchive = await earlierRequest(list([OLD, 'update.xml', NEW, 'update.xml', '8002.pdf']), [
      OLD,
      'update.xml',
    ]);
    assert.equal(withArchive?.accepted && withArchive.responseFile, NEW);
    looks = 0;
    // Nothing new is listed: the look says so once, and never waits for a listing (the workflow looks again).
    assert.equal(await earlierRequest(list([OLD]), [OLD]), undefined);
    assert.equal(looks, 1);
  });
});
