/**
 * The typed client: one method per operation of the service. Request rules are checked before anything is sent
 * (EcaRequestError naming the parameter); responses are validated and normalised (see ../schemas/) with the
 * untouched body kept as `raw`; file operations build the archive and seal it themselves, and open and parse
 * response files.
 *
 * Only the read-only query operations are retried by the client (see transport.ts). create, update,
 * submitDocuments and sso/create are never retried here: whether to repeat them is the caller's (the workflow's)
 * decision.
 */
import { EcaRequestError } from '../errors.js';
import type { EcaEnvironment } from '../sso.js';
import { DEFAULT_IMPORT_NAMESPACE } from '../xml.js';
import type { ClientContext } from './context.js';
import { createEnvelope } from './envelope.js';
import { applicationOperations } from './applications.js';
import { documentOperations } from './documents.js';
import { enumerationOperations } from './enumerations.js';
import { fileQueries, taskQueries } from './queries.js';
import { requestOperations } from './requests.js';
import { checkCsid } from './rules.js';
import { ssoOperations } from './sso.js';
import { createTransport } from './transport.js';
import type { EcaClient, EcaClientOptions } from './types.js';

export type * from './types.js';
export { DEFAULT_QUERY_RETRY_LIMIT, DEFAULT_TIMEOUT_MS, ECA_BASE_URLS, ECA_PREFERENCE_URLS } from './transport.js';
export { OPERATION_PATHS } from './operations.js';
export type { EcaOperation } from './operations.js';
export { EcaLanguageCodeError, isLanguageCode, LANGUAGE_CODE_PATTERN, normaliseAccountIds } from './rules.js';
export { parseEnumerationsBody } from './enumerations.js';

export function createEcaClient(options: EcaClientOptions): EcaClient {
  const environment: EcaEnvironment = options.environment ?? 'qa';
  if (environment !== 'qa' && environment !== 'prod') throw new EcaRequestError('environment', 'expected qa or prod');
  const transport = createTransport(options, environment);
  const envelope = createEnvelope(options);
  const csidOf = (own: string | undefined): string => checkCsid(own ?? options.csid);
  const ctx: ClientContext = {
    options,
    environment,
    namespace: options.importNamespace ?? DEFAULT_IMPORT_NAMESPACE,
    now: options.now ?? (() => new Date()),
    transport,
    envelope,
    csidOf,
    async sealedBody(own, content) {
      // Sealed before the CSID is checked: a client without keys reports that first.
      const payload = await envelope.seal(content);
      return { CSID: csidOf(own), payload };
    },
  };
  return {
    ...taskQueries(ctx),
    ...fileQueries(ctx),
    ...enumerationOperations(ctx),
    ...documentOperations(ctx),
    ...applicationOperations(ctx),
    ...requestOperations(ctx),
    ...ssoOperations(ctx),
  };
}
