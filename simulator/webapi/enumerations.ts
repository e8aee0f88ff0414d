/**
 * `GET /gw/api/v1/enumerations/{enumerationType}` (scope `accounts.read` or `enumerations.read`): the lists
 * getEnumerations serves, under the document's lower-case names (`fin-info-ranges` is FIN_INFO_RANGES), narrowed
 * by the same fields (`currency`, `form-number`). The document types `jsonData` only as an object: here it is
 * the rows, each keyed by its column. The document's types that getEnumerations does not have
 * (`questionnaires`, `wire-instructions`, `product-country-bundles`) are a 400, as is a `language` outside the
 * document's enumeration; the simulator holds no translations, so each of its languages reads the English texts.
 */
import type { FastifyInstance } from 'fastify';
import { WEBAPI_ENUMERATION_TYPES, WEBAPI_LANGUAGES } from '../../webapi/index.js';
import { enumerationRows } from '../operations/enumerations.js';
import { WebApiRefusal } from './authority.js';
import type { WebApiAuthority } from './authority.js';
import { answer } from './answer.js';

const SCOPES = ['accounts.read', 'enumerations.read'];

/** The document's values of the `language` query parameter. */
const LANGUAGES: readonly string[] = WEBAPI_LANGUAGES;

export function registerEnumerations(app: FastifyInstance, authority: WebApiAuthority): void {
  app.get<{ Params: { enumerationType: string }; Querystring: Record<string, string | undefined> }>(
    '/gw/api/v1/enumerations/:enumerationType',
    (request, reply) =>
      answer(reply, () => {
        authority.authenticateAny(request.headers.authorization, SCOPES);
        const { enumerationType } = request.params;
        if (!(WEBAPI_ENUMERATION_TYPES as readonly string[]).includes(enumerationType)) {
          throw new WebApiRefusal(400, `enumerationType: one of ${WEBAPI_ENUMERATION_TYPES.join(', ')}`);
        }
        const { language } = request.query;
        // One of the document's languages, or a 400; the lists' texts are the brokerage's English ones in each.
        if (language !== undefined && !LANGUAGES.includes(language)) {
          throw new WebApiRefusal(400, `language: one of ${LANGUAGES.join(', ')}`);
        }
        const table = enumerationRows(enumerationType.toUpperCase().replaceAll('-', '_'), {
          currency: request.query.currency,
          formNumber: request.query['form-number'],
        });
        if (typeof table === 'string') throw new WebApiRefusal(400, table);
        const jsonData = table.rows.map((row) => Object.fromEntries(table.header.map((name, at) => [name, row[at]])));
        return {
          enumerationsType: enumerationType,
          ...(request.query['form-number'] !== undefined && { formNumber: request.query['form-number'] }),
          jsonData,
        };
      }),
  );
}
