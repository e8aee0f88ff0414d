/**
 * The XML service's `ssoCreate` over the Web API's browser sessions (`POST /gw/api/v1/sso-browser-sessions`),
 * so that an SSO link (client/brokerage.ts) takes either protocol with the same checks: the user name and IP
 * before anything is sent, the URL after (https, the environment's hosts, no credentials), and the same
 * expiry. The document states no lifetime for a browser session: the link says 60 s after the call began, the
 * XML service's lifetime, the shortest the engine knows (a link shown as expiring early is asked for again; one
 * shown as valid when it is not fails the account holder).
 */
import { checkSingleIp, checkUserName, validateSignedUrl } from '../eca/index.js';
import type { EcaClient, EcaEnvironment, SignedUrlOptions } from '../eca/index.js';
import { WebApiHttpError } from '../webapi/index.js';
import type { WebApiClient } from '../webapi/index.js';

/** The statuses the document gives a request it refuses as such: the link is refused, as `RESULT` false is. */
const REFUSED = new Set([400, 403, 404]);

export function webApiSso(
  client: WebApiClient,
  environment: EcaEnvironment,
  options: Pick<SignedUrlOptions, 'allowInsecureLoopback'> = {},
): Pick<EcaClient, 'ssoCreate'> {
  return {
    async ssoCreate(request) {
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
    },
  };
}
