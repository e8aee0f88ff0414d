/**
 * The demo's two firms, one on each of the brokerage's protocols, both in the engine's database as a
 * deployment keeps them: the simulator's own firm on the XML service, and a second firm on the Web API
 * (OAuth 2.0), its client registered with the simulated brokerage. One worker serves both
 * (activities/protocol-router.ts).
 */
import { generateKeyPairSync } from 'node:crypto';
import { attemptSignal } from '../activities/attempt-signal.js';
import type { CodecKeyring } from '../codec/keyring.js';
import type { Database } from '../runtime/database/index.js';
import { FirmBrokerages } from '../runtime/firm-brokerages.js';
import { FirmRegistry } from '../runtime/firms.js';
import type { Protocol } from '../runtime/firm-settings.js';
import type { RunningSimulator } from '../simulator/server.js';

export interface DemoFirm {
  csid: string;
  protocol: Protocol;
  /** How the demo names it: the protocol and the CSID. */
  label: string;
}

/** Adds both firms to the database (their keys sealed with `keyring`); answers them and their brokerage clients. */
export async function demoFirms(
  sim: RunningSimulator,
  database: Database,
  keyring: CodecKeyring,
): Promise<{ firms: [DemoFirm, DemoFirm]; brokerages: FirmBrokerages }> {
  const registry = new FirmRegistry(database, { keyring });
  const settings = { baseUrl: sim.url, preferenceUrl: sim.preferenceUrl, firmTypes: ['advisor'] };
  await registry.add({
    csid: sim.csid,
    name: 'Demo Advisors (XML service)',
    settings,
    keys: { firmPrivateKey: sim.keys.firmPrivateKey, brokeragePublicKey: sim.keys.brokeragePublicKey },
  });

  const second = await sim.control.registerFirm({ name: 'demo-webapi' });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientId = `demo-${second.csid.toLowerCase()}`;
  sim.webapi.register({
    clientId,
    csid: second.csid,
    kid: 'demo-1',
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    scopes: ['accounts.read', 'accounts.write'],
  });
  await registry.add({
    csid: second.csid,
    name: 'Demo Brokers (Web API)',
    settings: {
      ...settings,
      protocol: 'webapi',
      webApi: {
        baseUrl: sim.url,
        clientId,
        keyId: 'demo-1',
        // What the brokerage registered for the client: no SSO scope, so none asked for.
        scopes: ['accounts.read', 'accounts.write'],
      },
    },
    // A firm that joined on the Web API: its client's key alone, no OpenPGP keys.
    keys: { webApiPrivateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
  });

  const brokerages = new FirmBrokerages(registry, {
    signal: attemptSignal,
    ssoAllowInsecureLoopback: true,
    database,
  });
  return {
    firms: [
      { csid: sim.csid, protocol: 'xml', label: `XML service, firm ${sim.csid}` },
      { csid: second.csid, protocol: 'webapi', label: `Web API, firm ${second.csid}` },
    ],
    brokerages,
  };
}
