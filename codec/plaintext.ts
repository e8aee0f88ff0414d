/**
 * Strict codec mode: what a worker's codec puts in place of a payload that was not encrypted (a
 * client without the engine's codec sent it), and how the workflows recognise it. Pure: imported by
 * the codec and by the workflow sandbox (workflows/plaintext-guard.ts), which refuses the message.
 */

/** The key of the value a strict codec decodes a plaintext payload to. */
export const PLAINTEXT_REFUSED = 'eca:plaintextRefused';

/** The ApplicationFailure type of a refusal. */
export const PLAINTEXT_REFUSED_TYPE = 'PlaintextRefused';

/** What the sender is told (and what the worker's log says). */
export const PLAINTEXT_REFUSED_MESSAGE =
  'refused: a payload was not encrypted. Send it through a client with the payload codec (ECA_CODEC_KEYS) ' +
  'or with the codec server (temporal --codec-endpoint); this worker runs in strict codec mode ' +
  '(ECA_CODEC_ALLOW_PLAINTEXT=true accepts plaintext during a migration)';

/** The value in place of a refused payload: no part of the original is kept. */
export interface PlaintextRefusal {
  [PLAINTEXT_REFUSED]: string;
}

export function isPlaintextRefusal(value: unknown): value is PlaintextRefusal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Record<string, unknown>)[PLAINTEXT_REFUSED] === 'string'
  );
}
