/**
 * Whose fault a refusal of a file operation is, told without reading the service's words: the spec gives
 * validateXML two causes of `isValid` false, a payload "not encrypted or signed with correct keys" and the
 * application's structural content errors, and no fixed texts to tell them apart. So the engine asks
 * validateXML about a reference application that has no content error (eca/application.ts
 * APPLICATION_XML_EXAMPLE), sealed with the same firm's keys as every file operation's payload: refused
 * too, the keys (or the service) are at fault, whatever the application holds; accepted, the keys are
 * fine. validateXML creates nothing, so the probe is safe to make at any time.
 */
import { APPLICATION_XML_EXAMPLE, EcaCryptoError, quoteService } from '../eca/index.js';
import type { EcaClient } from '../eca/index.js';
import type { ValidationOutcome } from '../workflows/application/activities.js';
import { callBrokerage } from './brokerage-errors.js';

/** The external id the reference application carries, so that it is told apart in the brokerage's logs. */
export const REFERENCE_EXTERNAL_ID = 'eca-reference-probe';

/** The reference application: the import schema's example, renamed. */
export const REFERENCE_APPLICATION_XML = APPLICATION_XML_EXAMPLE.replace(
  'external_id="EXT-1"',
  `external_id="${REFERENCE_EXTERNAL_ID}"`,
);

/** What validateXML says of the reference application: accepted, or refused with its texts. */
export type ReferenceVerdict = { accepted: true } | { accepted: false; errors: string[] };

/**
 * validateXML of the reference application for the firm `csid` (the client's own when undefined); a failure
 * of the call is thrown as it is.
 */
export async function validateReference(eca: EcaClient, csid: string | undefined): Promise<ReferenceVerdict> {
  const request = { ...(csid !== undefined && { CSID: csid }), applicationXml: REFERENCE_APPLICATION_XML };
  const result = await callBrokerage(() => eca.validateXML(request));
  return result.isValid ? { accepted: true } : { accepted: false, errors: result.errors };
}

/** A refused reference as a message quotes it (the service's words quoted: logs withhold them). */
export function referenceRefusal(verdict: Extract<ReferenceVerdict, { accepted: false }>): string {
  const texts = verdict.errors.map((error) => quoteService(error)).join('; ');
  return `validateXML refuses a reference application sealed with the same keys${texts ? ` (${texts})` : ''}`;
}

/**
 * validateXML of an application, and whose fault a refusal is. isValid false has two causes in the spec
 * (the keys, the application's content) and no fixed texts, so the words decide nothing: the reference
 * application refused too is the keys' problem, a configuration error (alerted, retried until the keys are
 * fixed, blocked past the bound), never a correction asked of the firm. The reference accepted, the
 * application is asked about again, so that keys fixed meanwhile never send a valid application back:
 * refused again, its own errors need correction.
 */
export async function validateApplicationXml(
  eca: EcaClient,
  csid: string,
  applicationXml: string,
): Promise<ValidationOutcome> {
  const validate = () => callBrokerage(() => eca.validateXML({ CSID: csid, applicationXml }));
  const first = await validate();
  if (first.isValid) return { valid: true, batchId: first.batchId };
  const reference = await validateReference(eca, csid);
  if (!reference.accepted) {
    const texts = first.errors.map((error) => quoteService(error)).join('; ');
    throw new EcaCryptoError(
      'signature',
      `validateXML refused the application${texts ? ` (${texts})` : ''}; ${referenceRefusal(reference)}: ` +
        "the firm's keys (or the service) are at fault, not the application",
    );
  }
  const again = await validate();
  if (again.isValid) return { valid: true, batchId: again.batchId };
  return { valid: false, errors: again.errors.length > 0 ? again.errors : ['validateXML: invalid'] };
}
