/**
 * The OpenPGP/ZIP envelope of the file operations as the firm uses it: request XML and attachments packed into a
 * ZIP and sealed (signed and encrypted) for the brokerage; response files opened and read with the schema path of
 * the field they came in.
 */
import { buildArchive } from '../archive.js';
import type { ArchiveAttachment } from '../archive.js';
import { loadPrivateKey, loadPublicKey, open, RESPONSE_FILE_SIGNATURE, seal } from '../crypto.js';
import { createCryptoPool } from '../crypto-pool.js';
import type { CryptoPool } from '../crypto-pool.js';
import type { EnvelopeKeys } from '../crypto.js';
import { EcaCryptoError, EcaRequestError, EcaSchemaError } from '../errors.js';
import { xmlWellFormednessError } from '../xml-tree.js';
import type { EcaClientOptions } from './types.js';

export interface Envelope {
  /** The firm's key pair towards the brokerage, loaded on first use. */
  keys(): Promise<EnvelopeKeys>;
  /** Signs and encrypts `content` for the brokerage: the `payload` of a file operation. */
  seal(content: Uint8Array): Promise<string>;
  /**
   * Opens a response file (signed or not: its signature is checked when it carries one); undefined when the
   * response has none, EcaSchemaError when it is empty.
   */
  openFileData(operation: string, data: string | undefined, path?: string): Promise<string | undefined>;
}

export function createEnvelope(options: EcaClientOptions): Envelope {
  let envelope: Promise<EnvelopeKeys> | undefined;
  function keys(): Promise<EnvelopeKeys> {
    envelope ??= (async () => {
      const privateSource = options.firmPrivateKey;
      const publicSource = options.brokeragePublicKey;
      if (privateSource === undefined) throw new EcaCryptoError('firmPrivateKey', 'no key configured');
      if (publicSource === undefined) throw new EcaCryptoError('brokeragePublicKey', 'no key configured');
      const [ownPrivateKey, peerPublicKey] = await Promise.all([
        typeof privateSource === 'string'
          ? loadPrivateKey(privateSource, options.passphrase, 'firmPrivateKey')
          : privateSource,
        typeof publicSource === 'string' ? loadPublicKey(publicSource, 'brokeragePublicKey') : publicSource,
      ]);
      return { ownPrivateKey, peerPublicKey, side: 'firm' as const };
    })();
    // A failed load is not cached, so a corrected key file is picked up by the next call.
    envelope.catch(() => (envelope = undefined));
    return envelope;
  }

  const pool = cryptoPoolOf(options);
  return {
    keys,
    async seal(content) {
      try {
        return pool ? await pool().seal(content) : await seal(content, await keys());
      } catch (error) {
        // Said so, a caller knows that nothing was sent (a write may then be sent again).
        if (error instanceof EcaCryptoError && error.stage === undefined) {
          throw new EcaCryptoError(error.key, error.message.slice(error.key.length + 2), {
            cause: error,
            stage: 'seal',
          });
        }
        throw error;
      }
    },
    async openFileData(operation, data, path = 'fileData.data') {
      if (data === undefined) return undefined;
      const bytes = pool ? await pool().open(data) : await open(data, await keys(), RESPONSE_FILE_SIGNATURE);
      const text = new TextDecoder().decode(bytes);
      if (text.trim() === '') throw new EcaSchemaError(path, `the ${operation} response file is empty`);
      return text;
    },
  };
}

/** The pool of crypto threads the options ask for, made on first use; undefined when the work stays in this thread. */
function cryptoPoolOf(options: EcaClientOptions): (() => CryptoPool) | undefined {
  const { cryptoThreads = 0, firmPrivateKey, brokeragePublicKey, passphrase } = options;
  if (cryptoThreads <= 0 || typeof firmPrivateKey !== 'string' || typeof brokeragePublicKey !== 'string')
    return undefined;
  let pool: CryptoPool | undefined;
  return () => (pool ??= createCryptoPool({ firmPrivateKey, brokeragePublicKey, passphrase }, cryptoThreads));
}

/** Runs a reader of an opened file, prefixing the path of a schema error with the field the file came in. */
export function withPath<T>(path: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof EcaSchemaError)
      throw new EcaSchemaError(`${path}:${error.path}`, error.message, { cause: error });
    throw error;
  }
}

/**
 * The ZIP of a request XML given as text: checked for well-formedness (naming `parameter`) before it is packed
 * with its attachments.
 */
export async function packXml(
  request: { xmlFileName?: string | undefined; attachments?: ArchiveAttachment[] | undefined },
  xml: unknown,
  parameter: string,
  defaultName: string,
  missing: string,
): Promise<Uint8Array> {
  if (typeof xml !== 'string') throw new EcaRequestError(parameter, missing);
  const problem = xmlWellFormednessError(xml);
  if (problem) throw new EcaRequestError(parameter, problem);
  const { zip } = await buildArchive({
    xml: { fileName: request.xmlFileName ?? defaultName, content: xml },
    attachments: request.attachments ?? [],
  });
  return zip;
}
