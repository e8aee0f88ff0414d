/** The activity of the firm's status sweep, as types only (workflows/sweep). */
import type { SweepReport } from './messages.js';

export interface SweepActivities {
  /**
   * Reads the firm's pending accounts and tasks (getAccountStatus with status N, then P, and
   * getPendingTasks, none with a selector), lists the applications waiting on the sweep from
   * visibility, reads by id (100 per call) those whose account left N and P, and signals
   * `accountObserved` to each application whose account no longer matches its `EcaObserved`.
   */
  sweepFirm(input: { csid: string }): Promise<SweepReport>;
}
