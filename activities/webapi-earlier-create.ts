/**
 * The Web API create's look-up (`GET /gw/api/v1/accounts?externalId=`), before a create is sent and after: what
 * it names for the external id, and, when it names nothing after an answered create, why that is in doubt.
 */
import type { StatusResponse, WebApiClient } from '../webapi/index.js';
import type { CreateOutcome } from '../workflows/application/activities.js';

/**
 * What the look-up answered when it names nothing for the external id: its `errorDescription` (the brokerage's
 * words), or the settled file it named again.
 */
export interface NothingListed {
  nothing: { said?: string; settledFile?: string };
}

/**
 * What the Web API holds for the external id, settled failures aside; {@link NothingListed} when nothing yet.
 * The look-up answers an account (`FileDetailsResponse`), or the application's response file
 * (`ResponseFileResponse`): processed with an error, a failure; otherwise (not processed yet, or processed
 * without an account named) the brokerage holds the application, so it is in doubt and looked up again, never
 * sent again. Only an error that names no file says there is nothing.
 */
export async function earlierCreate(
  api: WebApiClient,
  externalId: string,
  settled: Set<string>,
): Promise<CreateOutcome | NothingListed> {
  const found = await api.applicationByExternalId(externalId);
  if (found.accountId) {
    return {
      created: true,
      accountId: found.accountId,
      recovered: true,
      ...(found.responseFileName !== undefined && { responseFile: found.responseFileName }),
    };
  }
  const namesNothing =
    found.name === undefined && found.requestFileName === undefined && found.responseFileName === undefined;
  if (found.hasError === true && namesNothing && found.isProcessed === undefined) {
    const said = found.errorDescription?.trim().slice(0, 200);
    return { nothing: said ? { said } : {} };
  }
  if (found.name !== undefined && settled.has(found.name)) return { nothing: { settledFile: found.name } };
  if (found.isProcessed === true && found.hasError === true && found.name !== undefined) {
    return {
      created: false,
      errors: [found.errorDescription ?? 'the application was not processed'],
      settledFiles: [...settled, found.name],
    };
  }
  const named = found.name ?? found.responseFileName ?? found.requestFileName;
  const file = named === undefined ? 'an answer that is not "nothing"' : `file ${named}`;
  const reason =
    found.isProcessed === true
      ? `the Web API holds ${file} for the external id, processed, naming no account yet`
      : `the Web API holds ${file} for the external id, not processed yet`;
  return { created: false, unknown: { reason } };
}

/**
 * Why an answered create is in doubt when the look-up by external id names nothing of it, for staff. The
 * document describes no field of the create's answer that gives its outcome (`fileData.data` is an object it
 * does not describe), `GET /gw/api/v1/requests` is not said to list creates, and the look-up may not list an
 * application yet: so nothing establishes whether it was refused. External ids are brokerage-wide, and one
 * another firm of the brokerage already holds is refused at create and never listed for this firm: the reason
 * says so, since only the brokerage can tell that case from a listing not made yet.
 */
export function unlistedAfterCreate(answer: StatusResponse, listed: NothingListed): string {
  const named = answer.requestId === undefined ? 'create answered' : `create answered request ${answer.requestId}`;
  const { said, settledFile } = listed.nothing;
  if (settledFile !== undefined) {
    return `${named}; the Web API lists only the settled file ${settledFile} for the external id, not this create yet`;
  }
  return (
    `${named}, and the Web API lists no application under the external id for this firm` +
    `${said === undefined ? '' : ` ("${said}")`}: not listed yet, or never, since external ids are brokerage-wide ` +
    'and one another firm of the brokerage already holds is refused at create and never listed here (if the ' +
    'brokerage says so, abandon the application and start it under another id)'
  );
}
