/** The application's activities: transport failures retry with backoff, business refusals come back as results. */
import { proxyActivities } from '@temporalio/workflow';
import { NON_RETRYABLE_ERROR_TYPES } from '../../domain/error-types.js';
import type { ApplicationActivities } from './activities.js';

export const service = proxyActivities<ApplicationActivities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    // Key and document-store errors are retried until the configuration is fixed (activities/configuration-errors.ts).
    nonRetryableErrorTypes: [...NON_RETRYABLE_ERROR_TYPES],
  },
});
