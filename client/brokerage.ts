/**
 * The client operations that talk to the brokerage directly rather than through a workflow: SSO
 * sessions (short-lived, never stored) and language preferences. Brokerage settings come from the
 * same variables as the worker's (ECA_CSID, ECA_BASE_URL, ECA_FIRM_PRIVATE_KEY, ...).
 */
import {
  buildLandingUrl,
  checkSingleIp,
  EcaRequestError,
  findLandingPage,
  isLanguageCode,
  quoteService,
} from '../eca/index.js';
import type { EcaClient, PreferenceSetResponse } from '../eca/index.js';
import { createEcaClientFromConfig } from '../runtime/brokerage.js';
import { loadWorkerConfig } from '../runtime/config.js';
import { EngineError, InvalidInputError } from './errors.js';

function brokerageClient(): EcaClient {
  return createEcaClientFromConfig(loadWorkerConfig().brokerage);
}

export interface SsoUrl {
  url: string;
  expiresAt: Date;
}

/**
 * A session URL for the account holder `userName`, bound to the one end-user `ip`, valid 60 s; with
 * `landing`, the landing page's parameters appended. The URL is validated (https, allowed host) by
 * eca/ before it is returned, and it is never stored or logged. A landing page needs the session id the
 * URL carries as its `SID` query parameter: a URL without one gives `EcaSsoSessionIdError` (no guessed
 * landing URL; asked for without `landing`, the same kind of URL opens the portal's home page).
 */
export async function createSsoUrl(
  input: { userName: string; ip: string; landing?: string },
  eca: Pick<EcaClient, 'ssoCreate'> = brokerageClient(),
): Promise<SsoUrl> {
  // Checked before the call: a refused request must not leave a session behind at the brokerage.
  if (input.landing !== undefined && !findLandingPage(input.landing)) {
    throw new InvalidInputError('landing', `unknown landing page "${input.landing}" (the spec's landing-page table)`);
  }
  try {
    checkSingleIp(input.ip);
  } catch (error) {
    if (error instanceof EcaRequestError)
      throw new InvalidInputError('ip', `"${input.ip}" is not one IPv4 or IPv6 address`);
    throw error;
  }
  const response = await eca.ssoCreate({ userName: input.userName, ip: input.ip });
  if (!response.result || !response.signedUrl) {
    throw new EngineError(
      'BROKERAGE_REFUSED',
      `sso/create refused: ${quoteService(response.error) ?? 'no URL returned'}`,
    );
  }
  const url = input.landing ? buildLandingUrl(response.signedUrl, input.landing) : response.signedUrl.url;
  return { url, expiresAt: response.signedUrl.expiresAt };
}

/**
 * Sets the preferred languages of `userName`. Spec, preference/set: "Languages are given as short lower-case
 * codes": each is checked (the same rule as eca/'s preferenceSet) before the brokerage is contacted.
 */
export async function setLanguages(
  input: { userName: string; lang1: string; lang2?: string },
  eca?: EcaClient,
): Promise<PreferenceSetResponse> {
  // An empty lang2 (an omitted CLI argument) means none, as before.
  const languages: Array<[string, string]> = [['lang1', input.lang1]];
  if (input.lang2) languages.push(['lang2', input.lang2]);
  for (const [name, value] of languages) {
    if (!isLanguageCode(value)) {
      throw new InvalidInputError(
        name,
        `"${value}" is not a short lower-case language code (two or three letters a-z, e.g. en, zh, fra)`,
      );
    }
  }
  return (eca ?? brokerageClient()).preferenceSet({
    customerIdentity: { userName: input.userName },
    preferences: { LANGUAGE: { LANG1: input.lang1, ...(input.lang2 ? { LANG2: input.lang2 } : {}) } },
  });
}
