import { createEcaClient } from '../eca/index.js';
import type { EcaClient, EcaClientOptions } from '../eca/index.js';
import { ConfigurationError } from './config.js';
import type { WorkerConfig } from './config.js';
import { brokerageFetch } from './checked-fetch.js';

/**
 * The brokerage client built from the configuration, for workers and the client alike: CSID and both
 * keys are required, each named when missing. `signal` gives each call the signal to abort it with (the
 * worker passes its activity attempt's, see activities/attempt-signal.ts); `pace`, the firm's call budget
 * (runtime/call-budget.ts).
 */
export function createEcaClientFromConfig(
  config: WorkerConfig['brokerage'],
  options: {
    signal?: () => AbortSignal | undefined;
    pace?: EcaClientOptions['pace'];
    /** Threads for OpenPGP (EcaClientOptions.cryptoThreads); none unless given (a worker gives its configuration's). */
    cryptoThreads?: number;
  } = {},
): EcaClient {
  const missing = [
    config.csid ? undefined : 'ECA_CSID',
    config.firmPrivateKey ? undefined : 'ECA_FIRM_PRIVATE_KEY',
    config.brokeragePublicKey ? undefined : 'ECA_BROKERAGE_PUBLIC_KEY',
  ].filter((name) => name !== undefined);
  if (missing.length > 0 || !config.csid) {
    throw new ConfigurationError(`the brokerage connection needs ${missing.join(', ')}`);
  }
  return createEcaClient({
    environment: config.environment,
    baseUrl: config.baseUrl,
    preferenceUrl: config.preferenceUrl,
    csid: config.csid,
    firmPrivateKey: config.firmPrivateKey,
    passphrase: config.passphrase,
    brokeragePublicKey: config.brokeragePublicKey,
    timeoutMs: config.timeoutMs,
    sso: { allowInsecureLoopback: config.ssoAllowInsecureLoopback },
    signal: options.signal,
    pace: options.pace,
    cryptoThreads: options.cryptoThreads,
    // Connects only to addresses a brokerage may have; never follows a redirect (runtime/checked-fetch.ts).
    fetch: brokerageFetch,
  });
}
