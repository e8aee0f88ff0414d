// The test tiers (docs/develop.md, "Tests and their tiers"), each a folder of test/: unit (no Temporal server,
// no process), workflows (Temporal's time-skipping test server, in-process workers, replay) and e2e (the dev
// server, real processes, browsers, generated clients, the package). `npm test` runs the three in one run of
// mocha's parallel mode on .mocharc.json's options; `TEST_TIERS=unit,workflows` names the tiers a run takes
// (`npm run test:unit` and the others). A worker takes the next file as it finishes one, in the order listed
// here: the folders whose files run longest (workflows, package, client, end to end) go first and the unit
// tier last, its property tests (up to 45 s each) first, so that no long file starts last and runs alone.
// `npm test -- --jobs N` sets the number of workers. The fault and cluster suites have their own
// configurations.
const { readdirSync } = require('node:fs');
const path = require('node:path');
const { env } = require('node:process');
/** @type {Record<string, unknown>} */
const base = require('../.mocharc.json');

const TIERS = ['e2e', 'workflows', 'unit'];
/** The folders whose files run longest: an area (test/<tier>/<area>/), or a tier's own files at its top. */
const FIRST = ['workflows', 'package', 'client', 'e2e', 'runtime', 'api', 'contract'];
/** @param {string} file a path under test/ */
const rank = (file) => {
  const [tier, area, rest] = file.split('/');
  const index = FIRST.indexOf(rest === undefined ? tier : area);
  const folder = index < 0 ? FIRST.length : index;
  if (tier !== 'unit') return folder;
  return file.endsWith('.fuzz.test.ts') ? FIRST.length + 1 : FIRST.length + 2 + folder;
};
const asked = (env.TEST_TIERS || TIERS.join(',')).split(',').map((tier) => tier.trim());
const unknown = asked.filter((tier) => !TIERS.includes(tier));
if (unknown.length > 0) throw new Error(`TEST_TIERS: no tier ${unknown.join(', ')} (${TIERS.join(', ')})`);
const spec = TIERS.filter((tier) => asked.includes(tier))
  .flatMap((tier) =>
    readdirSync(path.join(__dirname, tier), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => `${tier}/${file}`),
  )
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
  .map((file) => `test/${file}`);

module.exports = { ...base, parallel: true, jobs: 3, spec };
