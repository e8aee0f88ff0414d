/**
 * The portal's passwords (the one assigned at creation, the permanent one the user sets), kept as SHA-256 digests:
 * the simulator's state never holds them in clear, and no log line names them.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export function passwordDigest(password: string): string {
  return createHash('sha256').update(`eca-simulator-portal\u0000${password}`).digest('hex');
}

/** Whether `given` is the password whose digest is `digest` (false when either is absent). */
export function passwordMatches(given: unknown, digest: string | undefined): boolean {
  if (typeof given !== 'string' || given === '' || digest === undefined) return false;
  const a = Buffer.from(passwordDigest(given), 'hex');
  const b = Buffer.from(digest, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
