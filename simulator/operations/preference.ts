/**
 * preference/set, served under the separate preference base (`{preference_url}` = `${url}/pref`).
 * The spec shows no response and no authentication; the simulator answers with a small JSON result.
 */
import { z } from 'zod';
import { nowText, ok, parseBody, RequestRefused, type Operation } from './context.js';

const language = z.string().regex(/^[a-z]{2,3}(-[a-z]{2,4})?$/, 'expected a short lower-case language code');

const input = z.object({
  customerIdentity: z.object({ userName: z.string().min(1) }),
  preferences: z.object({ LANGUAGE: z.object({ LANG1: language, LANG2: language.optional() }) }),
  updateMode: z.string().optional(),
  modifiedBy: z.string().optional(),
  srcApp: z.string().optional(),
});

export const setPreference: Operation = (ctx, request) => {
  const body = parseBody(input, request.body);
  const userName = body.customerIdentity.userName;
  const accountId = ctx.store.userNames.get(userName);
  const account = accountId === undefined ? undefined : ctx.store.account(accountId);
  if (!account) throw new RequestRefused(404, `Unknown user name ${userName}`);
  const { LANG1, LANG2 } = body.preferences.LANGUAGE;
  account.languages = LANG2 === undefined ? { lang1: LANG1 } : { lang1: LANG1, lang2: LANG2 };
  ctx.store.changed();
  return ok({ result: 'SUCCESS', userName, timestamp: nowText(ctx) });
};
