/**
 * The kinds of partner firm the spec tells apart: update functions are available per kind
 * (workflows/maintenance/functions.ts), and a firm's record names its own (runtime/firms.ts).
 * Fully disclosed and advisor firms share one availability column; non-disclosed firms have the other.
 */
export type FirmType = 'advisor' | 'fully-disclosed' | 'non-disclosed';

export const FIRM_TYPES: readonly FirmType[] = ['advisor', 'fully-disclosed', 'non-disclosed'];
