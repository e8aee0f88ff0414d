// `npm run test:faults`: every file of the fault suite, each on a world of its own, in mocha's parallel mode.
// The machine has few cores and every world is real processes, so the jobs are fewer than the files: a
// worker takes the next file as it finishes one, in the order listed here, the longest first (about six
// minutes each beside the others), so that no long file starts last and runs alone. A file not listed
// runs after these.
const { readdirSync } = require('node:fs');
const path = require('node:path');

const LONGEST_FIRST = ['brokerage', 'keys', 'event-delivery', 'processes', 'lost-answers', 'servers'];
/** @param {string} file a file name in test/faults */
const rank = (file) => {
  const index = LONGEST_FIRST.indexOf(file.replace(/\.test\.ts$/, ''));
  return index < 0 ? LONGEST_FIRST.length : index;
};
const files = readdirSync(path.join(__dirname, 'faults'))
  .filter((file) => file.endsWith('.test.ts'))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

module.exports = {
  'node-option': ['import=tsx'],
  require: ['test/support/hooks.ts'],
  spec: files.map((file) => `test/faults/${file}`),
  timeout: 600000,
  slow: 60000,
  reporter: 'spec',
  exit: true,
  'forbid-only': true,
  parallel: true,
  // Five at once: eight (one per file) starved the workers of CPU on two cores (workflow tasks past their
  // 10-s timeout), and the longest-first order keeps the whole about as short.
  jobs: 5,
};
