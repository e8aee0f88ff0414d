/** What every operation group of the client shares: options, transport, envelope and the CSID rule. */
import type { EcaEnvironment } from '../sso.js';
import type { Envelope } from './envelope.js';
import type { Transport } from './transport.js';
import type { EcaClientOptions } from './types.js';

export interface ClientContext {
  options: EcaClientOptions;
  environment: EcaEnvironment;
  /** Import-schema namespace written into request XML. */
  namespace: string;
  now: () => Date;
  transport: Transport;
  envelope: Envelope;
  /** The CSID of a call: the request's own, else the client's; checked. */
  csidOf(own: string | undefined): string;
  /** The body of a file operation: `content` sealed as `payload`, with the CSID. */
  sealedBody(own: string | undefined, content: Uint8Array): Promise<Record<string, string>>;
}
