/**
 * What an application last knew of its account, as a short fingerprint. The firm's status sweep
 * (workflows/sweep) computes the same fingerprint from its own reads and wakes an application only
 * when the two differ. Pure and deterministic: run in workflows and in activities alike.
 */
import type { AccountSnapshot } from './account.js';

/** The fingerprint of an application that has not read its account yet. */
export const NO_OBSERVATION = 'none';

/**
 * A canonical text of everything the lifecycle reads from a status poll (status, state text, tasks in
 * form-number order), hashed twice with FNV-1a from two offsets: 64 bits, so a change that leaves the
 * fingerprint equal is out of practical reach. The description term is empty for every read the
 * engine makes now (status reads leave the status's wording out: domain/account.ts); it stays in the
 * text so that workflows replaying older reads, which held a description, compute the same fingerprint.
 */
export function observationFingerprint(account: AccountSnapshot): string {
  const tasks = [...account.tasks]
    .map((task) => [
      task.formNumber,
      task.formName,
      task.action,
      task.state ?? '',
      task.reason ?? '',
      task.isRequiredForApproval ?? null,
      task.isOnlineTask ?? null,
    ])
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  const text = JSON.stringify([account.status, account.stateText ?? '', account.description ?? '', tasks]);
  return fnv1a(text, 0x811c9dc5) + fnv1a(text, 0x01000193 ^ 0x5bd1e995);
}

function fnv1a(text: string, offset: number): string {
  let hash = offset >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
