import { createEcaClient } from '../eca/index.js';
import type { EcaClient, EcaClientOptions } from '../eca/index.js';
import type { RunningSimulator } from './server.js';

/** The eca/ client of the simulator's demo firm: its addresses, CSID and keys (for demos and tests). */
export function ecaClientFor(sim: RunningSimulator, options: Partial<EcaClientOptions> = {}): EcaClient {
  return createEcaClient({
    baseUrl: sim.url,
    preferenceUrl: sim.preferenceUrl,
    csid: sim.csid,
    firmPrivateKey: sim.keys.firmPrivateKey,
    brokeragePublicKey: sim.keys.brokeragePublicKey,
    sso: { allowInsecureLoopback: true },
    ...options,
  });
}
