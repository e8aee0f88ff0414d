/**
 * sso/create and the hosted portal behind the URLs it hands out. A URL is unique per request,
 * bound to the one IP sent and valid 60 seconds (wall clock, see clock.ts). Open accounts land on
 * the page named by ACTION; pending applications are sent to the application instead.
 */
import { BlockList, isIP } from 'node:net';
import { LANDING_PAGES, type LandingPage } from '../../eca/landing-pages.js';
import { escapeXml } from '../../eca/xml-tree.js';
import { parseSsoPayload, SsoPayloadRefusal } from '../formats/sso-payload.js';
import { isPending } from '../lifecycle.js';
import { ok, type Operation, type OperationContext } from './context.js';
import { envelope, openPayload, PayloadProblem } from './envelope.js';
import type { SsoSessions } from '../sso-sessions.js';
import type { Store } from '../store.js';

function failure(error: string) {
  return ok({ RESULT: false, ERROR: error });
}

export const createSso: Operation = async (ctx, request) => {
  const { firm, payload } = envelope(ctx, request.body);
  let data: Uint8Array;
  try {
    data = await openPayload(ctx, firm, payload);
  } catch (error) {
    if (error instanceof PayloadProblem) return failure(error.message);
    throw error;
  }
  let userName: string;
  let ip: string;
  try {
    ({ userName, ip } = parseSsoPayload(new TextDecoder().decode(data)));
  } catch (error) {
    if (error instanceof SsoPayloadRefusal) return failure(`Invalid SSO request: ${error.message}`);
    throw error;
  }
  const url = portalSession(ctx.store, ctx.sso, ctx.portalUrl, { csid: firm.csid, userName, ip });
  if (url === undefined) return failure(`Unknown user name ${userName}`);
  return ok({ SUCCESS: { SIGNED_URL: Buffer.from(url, 'utf8').toString('base64') }, RESULT: true });
};

/**
 * A portal session for a user of one of the firm's accounts, bound to `ip`: its URL, or undefined when the firm
 * holds no account of that user (another firm's user is as unknown as none). Both doors make sessions so.
 */
export function portalSession(
  store: Store,
  sessions: SsoSessions,
  portalUrl: string,
  request: { csid: string; userName: string; ip: string },
): string | undefined {
  const accountId = store.userNames.get(request.userName);
  const account = accountId === undefined ? undefined : store.ownAccount(request.csid, accountId);
  if (!account) return undefined;
  const session = sessions.create({ csid: request.csid, accountId: account.accountId, ip: request.ip });
  // Spec: "`<sid>` is the session id of the URL"; where the URL holds it is not shown.
  return store.unpromised.has('sso-sid-elsewhere')
    ? `${portalUrl}/sso/Login/${session.sid}`
    : `${portalUrl}/sso/Login?SID=${session.sid}`;
}

export interface PortalPage {
  status: number;
  html: string;
  location?: string;
}

function page(status: number, title: string, body: string, attributes = ''): PortalPage {
  return {
    status,
    html: `<!doctype html><html><head><title>${escapeXml(title)}</title></head><body${attributes}><h1>${escapeXml(
      title,
    )}</h1>${body}</body></html>`,
  };
}

const FUNDING_ACTIONS = new Set([
  'TransferFunds',
  'WireWithdrawals',
  'ACHWithdrawals',
  'ACHDeposits',
  'FUND_TRANSFERS',
]);

/** Serves `GET /portal/...`: `rawUrl` is the path and query as received, `ip` the browser's address. */
export function servePortal(ctx: OperationContext, rawUrl: string, ip: string): PortalPage {
  const url = new URL(rawUrl, 'http://portal.invalid');
  // The session id as a `SID` query parameter, or as the last path segment (`sso-sid-elsewhere` hands out URLs so);
  // every one given must agree.
  const inPath = SID_IN_PATH.exec(url.pathname)?.[2];
  const sids = [...url.searchParams.getAll('SID'), ...(inPath === undefined ? [] : [inPath])];
  const sid = sids[0];
  if (sid === undefined || sids.some((other) => other !== sid))
    return page(403, 'Invalid session', '<p>Missing or inconsistent SID.</p>');
  const session = ctx.sso.get(sid);
  if (!session) return page(403, 'Invalid session', '<p>This session is unknown.</p>');
  if (ctx.sso.isExpired(session))
    return page(403, 'Session expired', '<p>This link has expired; request a new one.</p>');
  if (!sameAddress(session.ip, ip)) {
    return page(403, 'Access denied', '<p>This link was issued for another IP address.</p>');
  }
  const firm = ctx.store.firms.get(session.csid);
  if (ctx.env === 'qa' && firm && !firm.qaWhitelist.includes(ip)) {
    return page(403, 'Access Denied', '<p>This IP address is not whitelisted for the QA portal.</p>');
  }
  const account = ctx.store.account(session.accountId);
  if (!account) return page(403, 'Invalid session', '<p>The account no longer exists.</p>');
  const accountAttr = ` data-account="${escapeXml(account.accountId)}"`;
  const passwordNote = account.temporaryPasswordPending
    ? '<p>First access: enter the temporary password and choose a permanent one.</p>'
    : '';
  if (account.temporaryPasswordPending) {
    account.temporaryPasswordPending = false;
    ctx.store.changed();
  }
  const onApplication = url.pathname.endsWith('/application') || SID_IN_PATH.exec(url.pathname)?.[1] === 'application';
  if (onApplication || isPending(account)) {
    if (!onApplication) {
      return {
        status: 302,
        html: '',
        location:
          inPath === undefined
            ? `/portal/application?SID=${encodeURIComponent(sid)}`
            : `/portal/application/${encodeURIComponent(sid)}`,
      };
    }
    const open = account.tasks.filter((t) => !t.complete);
    const items = open.map((t) => `<li>${escapeXml(t.formName)} (${escapeXml(t.action)})</li>`).join('');
    return page(
      200,
      'Account application',
      `${passwordNote}<ul>${items}</ul>`,
      `${accountAttr} data-landing="application"`,
    );
  }
  if (account.status !== 'O') {
    return page(403, 'Account not available', `<p>The account has status ${account.status}.</p>`, accountAttr);
  }
  const landingParams = [...url.searchParams.keys()].filter((key) => key !== 'SID');
  if (landingParams.length === 0) return page(200, 'Home', passwordNote, `${accountAttr} data-landing="home"`);
  const landing = landingFor(url.searchParams, inPath !== undefined);
  if (!landing) return page(404, 'Unknown landing page', '<p>No landing page matches these parameters.</p>');
  const action = url.searchParams.get('ACTION') ?? '';
  if (ctx.env === 'qa' && FUNDING_ACTIONS.has(action)) {
    return page(403, landing.name, '<p>Funding functions are not available in the QA environment.</p>', accountAttr);
  }
  return page(200, landing.name, passwordNote, `${accountAttr} data-landing="${escapeXml(landing.id)}"`);
}

/** `/portal/sso/Login/<sid>` or `/portal/application/<sid>`: the session id in the path. */
const SID_IN_PATH = /^\/portal\/(sso\/Login|application)\/([^/]+)$/;

/**
 * The landing page whose fixed parameters the URL carries (placeholder parameters need only be
 * present, `SID` not even that when the path holds the session id); the most specific match wins,
 * so `config` pages beat their bare ACTION.
 */
function landingFor(params: URLSearchParams, sidInPath: boolean): LandingPage | undefined {
  let best: LandingPage | undefined;
  let bestScore = 0;
  for (const page of LANDING_PAGES) {
    let score = 0;
    let matches = true;
    for (const [key, value] of new URLSearchParams(page.query)) {
      if (value.includes('<')) {
        if (!params.has(key) && !(key === 'SID' && sidInPath)) matches = false;
      } else if (params.get(key) === value) {
        score += 1;
      } else {
        matches = false;
      }
      if (!matches) break;
    }
    if (matches && score > bestScore) {
      best = page;
      bestScore = score;
    }
  }
  return best;
}

/**
 * Whether the browser's address is the one sent (spec: "only from the IP sent in the request"). The same address
 * in another notation matches (`2001:DB8::7` and `2001:db8::7`; `::ffff:127.0.0.1`, how a dual-stack socket shows
 * an IPv4 peer, and `127.0.0.1`); another address never does, loopback ones included (`::1` is not `127.0.0.1`).
 */
function sameAddress(sent: string, seen: string): boolean {
  const family = (ip: string) => (isIP(ip) === 6 ? 'ipv6' : 'ipv4');
  if (isIP(sent) === 0 || isIP(seen) === 0) return false;
  const list = new BlockList();
  list.addAddress(sent, family(sent));
  return list.check(seen, family(seen));
}
