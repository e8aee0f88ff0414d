/** The brokerage port (brokerage/port.ts) on the Web API: the firm's client, in the port's terms. */
import { checkSingleIp, checkUserName, validateSignedUrl } from '../../eca/index.js';
import type { EcaEnvironment, SignedUrlOptions } from '../../eca/index.js';
import { WebApiAnswerError, WebApiHttpError } from '../../webapi/index.js';
import type { WebApiClient } from '../../webapi/index.js';
import type { Brokerage, SsoCreate } from '../port.js';
import { WebApiSweepReads } from './sweep-reads.js';
import { submitDailyDocuments } from './documents.js';

/** The statuses the document gives a request it refuses as such: the link is refused, as `RESULT` false is. */
const REFUSED = new Set([400, 403, 404]);

export interface WebApiBrokerageOptions extends Pick<SignedUrlOptions, 'allowInsecureLoopback'> {
  /** What the worker keeps between the status sweep's slots (sweep-reads.ts); its own otherwise. */
  sweeps?: WebApiSweepReads;
}

/** The port on the firm `csid`'s Web API client. */
export function webApiBrokerage(
  client: WebApiClient,
  csid: string,
  environment: EcaEnvironment,
  options: WebApiBrokerageOptions = {},
): Brokerage {
  const sweeps = options.sweeps ?? new WebApiSweepReads();
  return {
    protocol: 'webapi',
    ownsAccount: (accountId) => ownsAccount(client, accountId),
    ssoCreate: sso(client, environment, options),
    sweepReads: ({ counted }) => sweeps.start(client, csid, counted),
    submitDailyDocuments: (files, signedAt) => submitDailyDocuments(client, files, signedAt),
  };
}

/**
 * The account's status asked with the firm's client: an account that is not the firm's is answered with
 * `hasError` (the document's account answers carry their errors in the body), or with a 500, which the document
 * allows for a wrong account id: then the firm's accounts are read for it (`WebApiClient.findAccount`).
 */
async function ownsAccount(client: WebApiClient, accountId: string): Promise<boolean> {
  try {
    await client.accountStatus(accountId);
    return true;
  } catch (error) {
    if (error instanceof WebApiAnswerError) return false;
    // A 500 may be the document's answer for a wrong account id: the firm's accounts say which.
    if (!(error instanceof WebApiHttpError && error.status === 500)) throw error;
  }
  return (await client.findAccount(accountId)) !== undefined;
}

/**
 * An SSO link is made with the Web API's browser sessions (`POST /gw/api/v1/sso-browser-sessions`),
 * so that an SSO link (client/brokerage.ts) takes either protocol with the same checks: the user name and IP
 * before anything is sent, the URL after (https, the environment's hosts, no credentials), and the same
 * expiry. The document states no lifetime for a browser session: the link says 60 s after the call began, the
 * XML service's lifetime, the shortest the engine knows (a link shown as expiring early is asked for again; one
 * shown as valid when it is not fails the account holder).
 */
function sso(
  client: WebApiClient,
  environment: EcaEnvironment,
  options: Pick<SignedUrlOptions, 'allowInsecureLoopback'>,
): SsoCreate {
  return async (request) => {
    const ip = checkSingleIp(request.ip);
    const credential = checkUserName(request.userName);
    const issuedAt = new Date();
    let answer;
    try {
      answer = await client.createBrowserSession({ credential, ip });
    } catch (error) {
      if (error instanceof WebApiHttpError && REFUSED.has(error.status)) {
        return { result: false, error: `HTTP ${error.status}: ${error.bodyExcerpt}`, raw: undefined };
      }
      throw error;
    }
    // The URL is never kept in `raw`: it opens the holder's session.
    if (answer.active === false) return { result: false, error: 'the session is not active', raw: { active: false } };
    const signedUrl = validateSignedUrl(answer.url, environment, { ...options, issuedAt }, 'url');
    return { result: true, signedUrl, raw: { active: answer.active } };
  };
}
