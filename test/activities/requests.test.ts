/**
 * Reading getAmRequestStatus as the spec shapes it ("each keyed by a request type; each holds `data`
 * ... and `files`"): a request is matched on its response file name, and nothing is attributed that
 * the answer does not tie to that file alone.
 */
import assert from 'node:assert/strict';
import { requestByFile } from '../../activities/request-status.js';
import { earlierRequest } from '../../activities/update-sender.js';
import type { AmRequestStatusResponse } from '../../eca/index.js';

type Status = 'PROCESSED' | 'REJECTED' | 'PENDING';

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
    assert.deepEqual(requestByFile(listed({ files: ['a.xml'], statuses: ['PROCESSED'] }), 'a.xml'), {
      decided: true,
      processed: true,
    });
    const rejected = requestByFile(
      listed({ files: ['old.xml'], statuses: ['PROCESSED'] }, { files: ['a.xml'], statuses: ['REJECTED'] }),
      'a.xml',
    );
    assert.equal(rejected.decided && !rejected.processed, true);
    assert.deepEqual(requestByFile(listed({ files: ['a.xml'], statuses: ['PENDING'] }), 'a.xml'), {
      decided: false,
      status: 'PENDING',
    });
    assert.deepEqual(requestByFile(listed({ files: ['b.xml'], statuses: ['PROCESSED'] }), 'a.xml'), {
      decided: false,
      status: 'not listed yet',
    });
  });

  it('does not attribute a group that lists other files too (the spec ties no status to a file)', function () {
    const grouped = requestByFile(
      listed({ files: ['old.xml', 'a.xml'], statuses: ['REJECTED', 'PROCESSED'] }),
      'a.xml',
    );
    assert.equal(grouped.decided, false);
  });
});

describe('the request of an earlier attempt', function () {
  it('adopts exactly one new file, refuses to choose among several, and finds none after its looks', async function () {
    let looks = 0;
    const list = (files: string[]) => () => {
      looks++;
      return Promise.resolve(files);
    };
    assert.deepEqual(await earlierRequest(list(['old.xml', 'new.xml']), ['old.xml'], []), {
      accepted: true,
      requestIds: [],
      responseFile: 'new.xml',
      recovered: true,
    });
    const ambiguous = await earlierRequest(list(['old.xml', 'x.xml', 'y.xml']), ['old.xml'], []);
    assert.deepEqual(ambiguous, { accepted: true, requestIds: [], recovered: true });
    looks = 0;
    assert.equal(await earlierRequest(list(['old.xml']), ['old.xml'], [1, 1]), undefined);
    assert.equal(looks, 3, 'looked once and again after each wait');
  });
});
