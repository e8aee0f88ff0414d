/**
 * A Web API client registered with an in-process simulator, as the brokerage registers a firm's: a fresh RSA
 * key pair, its public half given to the simulator's authorization server under `kid`.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { RunningSimulator } from '../../simulator/server.js';
import { WebApiClient } from '../../webapi/index.js';
import type { WebApiClientOptions } from '../../webapi/index.js';

export interface RegisteredWebApiClient {
  clientId: string;
  kid: string;
  privateKey: KeyObject;
  /** The private key as a firm's keys hold it (`webApiPrivateKey`: PKCS #8 PEM). */
  privateKeyPem: string;
  /** A client of the simulator with this key, asking for the scopes registered (the engine's unless given). */
  client(options?: Partial<WebApiClientOptions>): WebApiClient;
}

export function registerWebApiClient(
  sim: RunningSimulator,
  registration: { clientId: string; csid: string; kid?: string; scopes?: string[] },
): RegisteredWebApiClient {
  const { clientId, csid, kid = 'k1', scopes } = registration;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  sim.webapi.register({
    clientId,
    csid,
    kid,
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    ...(scopes && { scopes }),
  });
  return {
    clientId,
    kid,
    privateKey,
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client: (options = {}) =>
      new WebApiClient({ clientId, keyId: kid, privateKey, baseUrl: sim.url, ...(scopes && { scopes }), ...options }),
  };
}
