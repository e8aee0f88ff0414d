// `npm test`: every `*.test.ts` under test/ but the fault and cluster suites (their own configurations), on
// .mocharc.json's options, in mocha's parallel mode. A worker takes the next file as it finishes one, in the
// order listed here: the folders whose files run longest (processes, end to end, workflows) go first, so
// that no minute-long file starts last and runs alone. `npm test -- --jobs N` sets the number of workers.
const { readdirSync } = require('node:fs');
/** @type {Record<string, unknown>} */
const base = require('../.mocharc.json');

const FIRST = ['workflows', 'package', 'client', 'e2e', 'runtime', 'api', 'contract'];
/** @param {string} file a path under test/ */
const rank = (file) => {
  const index = FIRST.indexOf(file.split('/')[0]);
  return index < 0 ? FIRST.length : index;
};
const files = readdirSync(__dirname, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts') && !/^(faults|cluster)\//.test(file))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

module.exports = { ...base, parallel: true, jobs: 3, spec: files.map((file) => `test/${file}`) };
