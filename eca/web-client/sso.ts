/** sso/create (a signed session URL for the end user) and preference/set (the user's languages). */
import { fromBase64, open, RESPONSE_FILE_SIGNATURE } from '../crypto.js';
import { EcaRequestError, EcaSchemaError } from '../errors.js';
import { responseSchemas, validateResponse } from '../schemas/index.js';
import { buildSsoPayload, validateSignedUrl } from '../sso.js';
import type { ClientContext } from './context.js';
import { checkLanguage } from './rules.js';
import type { EcaClient, SsoCreateResponse } from './types.js';

/**
 * Where the response carries the signed URL. The spec gives two shapes: the endpoint section says "`SUCCESS`
 * (object with `SIGNED_URL`...)", the resources section lists the fields flat: "`SIGNED_URL` (base64 string of the
 * session URL), `RESULT` (boolean), `ERROR` (string)". Both are read; the nested one wins when both are sent.
 */
function signedUrlField(parsed: { SUCCESS?: { SIGNED_URL?: string | undefined } | null | undefined }): {
  encoded: string | undefined;
  path: string;
} {
  const nested = parsed.SUCCESS?.SIGNED_URL;
  if (nested !== undefined) return { encoded: nested, path: 'SUCCESS.SIGNED_URL' };
  const flat = (parsed as Record<string, unknown>).SIGNED_URL;
  if (flat === undefined || flat === null) return { encoded: undefined, path: 'SUCCESS.SIGNED_URL' };
  if (typeof flat !== 'string') throw new EcaSchemaError('SIGNED_URL', 'expected base64 text');
  return { encoded: flat.trim() === '' ? undefined : flat, path: 'SIGNED_URL' };
}

export function ssoOperations(ctx: ClientContext): Pick<EcaClient, 'ssoCreate' | 'preferenceSet'> {
  const { transport, envelope } = ctx;
  return {
    async ssoCreate(request) {
      const payloadJson = JSON.stringify(buildSsoPayload({ userName: request.userName, ip: request.ip }));
      const body = await ctx.sealedBody(request.CSID, new TextEncoder().encode(payloadJson));
      // Taken before the request leaves: the brokerage issues the URL after this instant, so expiresAt
      // (issuedAt + 60 s, spec: "The URL is valid 60 seconds") can only underestimate the validity, never overestimate it.
      const issuedAt = ctx.now();
      const raw = await transport.postJson('ssoCreate', body, 'once');
      const parsed = validateResponse(responseSchemas.ssoCreate, raw);
      const result: SsoCreateResponse = { result: parsed.RESULT, raw };
      if (parsed.ERROR !== undefined && parsed.ERROR !== '') result.error = parsed.ERROR;
      const { encoded, path } = signedUrlField(parsed);
      if (parsed.RESULT) {
        if (encoded === undefined) {
          throw new EcaSchemaError(path, 'missing although RESULT is true (neither SUCCESS.SIGNED_URL nor SIGNED_URL)');
        }
        const bytes = fromBase64(encoded);
        if (!bytes || bytes.length === 0) throw new EcaSchemaError(path, 'not base64 text');
        let urlText = new TextDecoder().decode(bytes).trim();
        // The spec asks to "decrypt and validate" the URL: an OpenPGP-sealed URL is opened, a plain one used as is.
        if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(urlText)) {
          urlText = new TextDecoder()
            .decode(await open(encoded, await envelope.keys(), RESPONSE_FILE_SIGNATURE))
            .trim();
        }
        result.signedUrl = validateSignedUrl(urlText, ctx.environment, { ...ctx.options.sso, issuedAt }, path);
      }
      return result;
    },

    async preferenceSet(request) {
      const userName = request.customerIdentity?.userName;
      if (typeof userName !== 'string' || userName.trim() === '') {
        throw new EcaRequestError('customerIdentity.userName', 'a user name is required');
      }
      const language = request.preferences?.LANGUAGE;
      const LANGUAGE: Record<string, string> = { LANG1: checkLanguage(language?.LANG1, 'preferences.LANGUAGE.LANG1') };
      if (language?.LANG2 !== undefined) LANGUAGE.LANG2 = checkLanguage(language.LANG2, 'preferences.LANGUAGE.LANG2');
      const body = {
        customerIdentity: { userName: userName.trim() },
        preferences: { LANGUAGE },
        updateMode: request.updateMode ?? 'INDIVIDUAL',
        modifiedBy: request.modifiedBy ?? 'ECA',
        srcApp: request.srcApp ?? 'ECA',
      };
      // Not a read-only call: never retried.
      const { status, text } = await transport.send('preferenceSet', body, 'once');
      let parsedBody: unknown = text;
      try {
        parsedBody = text.trim() === '' ? undefined : (JSON.parse(text) as unknown);
      } catch {
        // The response format is not in the spec: non-JSON text is returned as is.
      }
      return { status, body: parsedBody, raw: parsedBody };
    },
  };
}
