import type { Context } from 'mocha';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { provisionServers, stopServers } from './servers.js';

// Workers log every state change at INFO; tests keep warnings and errors only (TEST_LOG_LEVEL overrides).
Runtime.install({
  logger: new DefaultLogger((process.env.TEST_LOG_LEVEL as 'WARN' | undefined) ?? 'WARN'),
});

/** Root hooks (mocha's root hook plugin), loaded through `.mocharc.json`. */
export const mochaHooks = {
  async beforeAll(this: Context) {
    // A first run builds the dev server with Go (minutes); later runs find it cached.
    this.timeout(30 * 60_000);
    await provisionServers();
  },
  async afterAll(this: Context) {
    this.timeout(60_000);
    await stopServers();
  },
};
