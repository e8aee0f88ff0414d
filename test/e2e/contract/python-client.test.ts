/**
 * The Python client generated from docs/openapi.json (openapi-generator `python`, pydantic v2) drives a
 * whole application against the real API, and still reads a newer server's answers (an unknown field, a
 * new lifecycle state, a new event type). Its runtime dependencies are the pinned ones of the contract
 * venv (scripts/contract-tools.ts).
 */
import { join } from 'node:path';
import { contractVenv } from '../../../scripts/contract-tools.js';
import type { ContractVenv } from '../../../scripts/contract-tools.js';
import { generateClient, REPO, sh, startRealApi, timed, webhookReceiver, workDir } from './support.js';
import { clientRunCases } from './client-runs.js';
import type { RealApi } from './support.js';

describe('contract: the generated Python client', function () {
  this.timeout(180_000);
  let work: Awaited<ReturnType<typeof workDir>>;
  let venv: ContractVenv;
  let api: RealApi;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
  const client = () => join(work.dir, 'python');

  const runClient = (args: string[]) =>
    timed(`python client ${args[0]}`, () =>
      sh(venv.python, [join(REPO, 'test', 'e2e', 'contract', 'python_client_run.py'), ...args], {
        env: { PYTHONPATH: client(), ECA_API_KEY: api.keys.onboarding, PYTHONDONTWRITEBYTECODE: '1' },
      }),
    );

  before(async function () {
    // The first run provisions the venv and the generator (tens of seconds); later runs find them cached.
    this.timeout(900_000);
    work = await workDir('python');
    [venv, api, receiver] = await Promise.all([
      timed('provision venv', () => contractVenv()),
      timed('start the real API', () => startRealApi()),
      webhookReceiver(),
      generateClient('python', work.spec, client()),
    ]);
  });

  after(async function () {
    await receiver?.close();
    await api?.close();
    await work?.remove();
  });

  clientRunCases('py', () => ({ api, receiver, dir: work.dir, run: runClient }));
});
