/** The activity of the document retention workflow, as types only (workflows/retention). */
import type { ReleaseReport } from '../../domain/documents.js';

export interface RetentionActivities {
  /**
   * Releases every document the application stored (the store records owners at `put`): each is
   * deleted unless another application holds it too or it was stored without an owner.
   */
  releaseDocuments(input: { owner: string }): Promise<ReleaseReport>;
}
