/** The activity of the document retention workflow, as types only (workflows/retention). */

export interface RetentionActivities {
  /**
   * Removes these documents from the store, except any stored again after `keepIfStoredAfter` (ms since
   * the epoch): the store is content-addressed, so another application may have stored the same bytes
   * since and still need them. Documents already gone count as removed.
   */
  deleteDocuments(input: { sha1s: string[]; keepIfStoredAfter: number }): Promise<{ deleted: number; kept: number }>;
}
