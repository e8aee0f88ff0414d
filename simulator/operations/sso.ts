/**
 * sso/create and the hosted portal behind the URLs it hands out. A URL is unique per request,
 * bound to the one IP sent and valid 60 seconds (wall clock, see clock.ts). Open accounts land on
 * the page named by ACTION; pending applications are sent to the application instead.
 */
import { BlockList, isIP } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { LANDING_PAGES, type LandingPage } from '../../eca/landing-pages.js';
import { escapeXml } from '../../eca/xml-tree.js';
import { parseSsoPayload, SsoPayloadRefusal } from '../formats/sso-payload.js';
import { isPending } from '../lifecycle.js';
import { ok, type Operation, type OperationContext } from './context.js';
import { envelope, openPayload, PayloadProblem } from './envelope.js';
import type { SsoSession, SsoSessions } from '../sso-sessions.js';
import type { AccountRecord } from '../model.js';
import { passwordDigest, passwordMatches } from '../portal-passwords.js';
import type { Store } from '../store.js';
import type { CallCounts } from '../faults.js';

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
 * holds no account of that user (another firm's user is as unknown as none). Both protocols make sessions so.
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

/**
 * Pages where the portal asks for user name and password even in an SSO session (spec, Authentication 8: "when
 * adding ACH instructions, adding wire withdrawal instructions or initiating a withdrawal request"): the withdrawal
 * pages, the ACH pages (an ACH deposit adds ACH instructions), the saved funding instructions, and Transfer Funds
 * unless it is a deposit by another method than ACH.
 */
const CREDENTIAL_ACTIONS = new Set([
  'WireWithdrawals',
  'ACHWithdrawals',
  'ACHDeposits',
  'FUND_TRANSFERS',
  'FUNDING_INSTRUCTIONS',
  'FundingInstructions',
]);

function asksForCredentials(params: URLSearchParams): boolean {
  const action = params.get('ACTION') ?? '';
  if (CREDENTIAL_ACTIONS.has(action)) return true;
  if (action !== 'TransferFunds') return false;
  return !(params.get('type') === 'DEPOSIT' && params.has('method') && params.get('method') !== 'ACH');
}

type Opened = { session: SsoSession; account: AccountRecord } | { refused: PortalPage };

/** The session a portal request names (`sid`), checked as every portal page checks it. */
function openSession(ctx: OperationContext, sid: string | undefined, ip: string): Opened {
  if (sid === undefined) return { refused: page(403, 'Invalid session', '<p>Missing or inconsistent SID.</p>') };
  const session = ctx.sso.get(sid);
  if (!session) return { refused: page(403, 'Invalid session', '<p>This session is unknown.</p>') };
  if (ctx.sso.isExpired(session))
    return { refused: page(403, 'Session expired', '<p>This link has expired; request a new one.</p>') };
  if (!sameAddress(session.ip, ip)) {
    return { refused: page(403, 'Access denied', '<p>This link was issued for another IP address.</p>') };
  }
  const firm = ctx.store.firms.get(session.csid);
  if (ctx.env === 'qa' && firm && !firm.qaWhitelist.includes(ip)) {
    return {
      refused: page(403, 'Access Denied', '<p>This IP address is not whitelisted for the QA portal.</p>'),
    };
  }
  const account = ctx.store.account(session.accountId);
  if (!account) return { refused: page(403, 'Invalid session', '<p>The account no longer exists.</p>') };
  return { session, account };
}

/** A form of the portal posting to `action`, carrying the session id and the page to go on to. */
function form(action: string, sid: string, next: string, fields: string, problem?: string): string {
  return (
    (problem ? `<p class="problem">${escapeXml(problem)}</p>` : '') +
    `<form method="post" action="/portal/${action}"><input type="hidden" name="SID" value="${escapeXml(sid)}">` +
    `<input type="hidden" name="next" value="${escapeXml(next)}">${fields}<button>Continue</button></form>`
  );
}

/** The portal's steps before a page: their titles, words and form fields. */
const STEPS = {
  'first-access': {
    title: 'First access',
    intro: 'First access: enter the temporary password and choose a permanent one.',
    fields: [
      ['Temporary password', 'temporaryPassword', 'password'],
      ['New password', 'newPassword', 'password'],
    ],
  },
  credentials: {
    title: 'Confirm your identity',
    intro: 'Enter your user name and password to manage withdrawals and funding instructions.',
    fields: [
      ['User name', 'userName', 'text'],
      ['Password', 'password', 'password'],
    ],
  },
} as const;

type Step = keyof typeof STEPS;

function stepPage(step: Step, status: number, sid: string, next: string, problem?: string): PortalPage {
  const { title, intro, fields } = STEPS[step];
  const inputs = fields.map(([label, name, type]) => `<label>${label} <input type="${type}" name="${name}"></label>`);
  return page(
    status,
    title,
    `<p>${intro}</p>${form(step, sid, next, inputs.join(''), problem)}`,
    ` data-landing="${step}"`,
  );
}

/**
 * A page the portal would serve (200), or the step that comes before it: the first-access password step while the
 * temporary password is unreplaced (Authentication 7), then, in production, user name and password on the pages
 * that ask for them (Authentication 8). Nothing is cleared on the way: only passing a step does that.
 */
function gated(
  ctx: OperationContext,
  opened: { session: SsoSession; account: AccountRecord },
  next: string,
  credentials: boolean,
  serve: () => PortalPage,
): PortalPage {
  const { session, account } = opened;
  if (account.temporaryPasswordPending) return stepPage('first-access', 200, session.sid, next);
  if (credentials && ctx.env === 'prod' && !session.credentialsConfirmed) {
    return stepPage('credentials', 200, session.sid, next);
  }
  return serve();
}

/** Serves `GET /portal/...`: `rawUrl` is the path and query as received, `ip` the browser's address. */
export function servePortal(ctx: OperationContext, rawUrl: string, ip: string): PortalPage {
  const url = new URL(rawUrl, 'http://portal.invalid');
  // The session id as a `SID` query parameter, or as the last path segment (`sso-sid-elsewhere` hands out URLs so);
  // every one given must agree.
  const inPath = SID_IN_PATH.exec(url.pathname)?.[2];
  const sids = [...url.searchParams.getAll('SID'), ...(inPath === undefined ? [] : [inPath])];
  const sid = sids.some((other) => other !== sids[0]) ? undefined : sids[0];
  const opened = openSession(ctx, sid, ip);
  if ('refused' in opened) return opened.refused;
  const { account } = opened;
  const accountAttr = ` data-account="${escapeXml(account.accountId)}"`;
  const onApplication = url.pathname.endsWith('/application') || SID_IN_PATH.exec(url.pathname)?.[1] === 'application';
  if (onApplication || isPending(account)) {
    if (!onApplication) {
      const at = encodeURIComponent(opened.session.sid);
      return {
        status: 302,
        html: '',
        location: inPath === undefined ? `/portal/application?SID=${at}` : `/portal/application/${at}`,
      };
    }
    const open = account.tasks.filter((t) => !t.complete);
    const items = open.map((t) => `<li>${escapeXml(t.formName)} (${escapeXml(t.action)})</li>`).join('');
    return gated(ctx, opened, rawUrl, false, () =>
      page(200, 'Account application', `<ul>${items}</ul>`, `${accountAttr} data-landing="application"`),
    );
  }
  if (account.status !== 'O') {
    return page(403, 'Account not available', `<p>The account has status ${account.status}.</p>`, accountAttr);
  }
  const landingParams = [...url.searchParams.keys()].filter((key) => key !== 'SID');
  if (landingParams.length === 0) {
    return gated(ctx, opened, rawUrl, false, () => page(200, 'Home', '', `${accountAttr} data-landing="home"`));
  }
  const landing = landingFor(url.searchParams, inPath !== undefined);
  if (!landing) return page(404, 'Unknown landing page', '<p>No landing page matches these parameters.</p>');
  const action = url.searchParams.get('ACTION') ?? '';
  if (ctx.env === 'qa' && FUNDING_ACTIONS.has(action)) {
    return page(403, landing.name, '<p>Funding functions are not available in the QA environment.</p>', accountAttr);
  }
  return gated(ctx, opened, rawUrl, asksForCredentials(url.searchParams), () =>
    page(200, landing.name, '', `${accountAttr} data-landing="${escapeXml(landing.id)}"`),
  );
}

/** Where a step goes on to: the portal page it was asked for (a path under /portal/ only), else the home page. */
function nextOf(next: unknown, sid: string): string {
  return typeof next === 'string' && next.startsWith('/portal/') && !next.startsWith('/portal//')
    ? next
    : `/portal/sso/Login?SID=${encodeURIComponent(sid)}`;
}

/**
 * Serves `POST /portal/first-access` and `POST /portal/credentials` (form fields `SID`, `next`, and the step's
 * own): the first-access step is passed with the temporary password and a new one (not the same), which becomes
 * the user's password; the credentials step with the user's name and that password, for the rest of the session.
 * Passed, the browser is sent on (303) to the page asked for; otherwise the step is shown again (401, or 400 for a
 * new password that cannot be taken), and nothing changes.
 */
export function servePortalStep(
  ctx: OperationContext,
  step: Step,
  fields: Record<string, unknown>,
  ip: string,
): PortalPage {
  const sid = typeof fields.SID === 'string' ? fields.SID : undefined;
  const opened = openSession(ctx, sid, ip);
  if ('refused' in opened) return opened.refused;
  const { session, account } = opened;
  const next = nextOf(fields.next, session.sid);
  const onward: PortalPage = { status: 303, html: '', location: next };
  if (step === 'first-access') {
    if (!account.temporaryPasswordPending) return onward;
    if (!passwordMatches(fields.temporaryPassword, account.temporaryPasswordDigest)) {
      return stepPage('first-access', 401, session.sid, next, 'The temporary password is not the one assigned.');
    }
    const chosen = fields.newPassword;
    if (typeof chosen !== 'string' || chosen === '' || chosen === fields.temporaryPassword) {
      return stepPage('first-access', 400, session.sid, next, 'Choose a new password other than the temporary one.');
    }
    account.temporaryPasswordPending = false;
    delete account.temporaryPasswordDigest;
    account.passwordDigest = passwordDigest(chosen);
    ctx.store.changed();
    return onward;
  }
  if (account.temporaryPasswordPending) return stepPage('first-access', 200, session.sid, next);
  if (fields.userName !== account.userName || !passwordMatches(fields.password, account.passwordDigest)) {
    return stepPage('credentials', 401, session.sid, next, 'The user name or the password is wrong.');
  }
  session.credentialsConfirmed = true;
  return onward;
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

/** The hosted portal that SSO URLs point to: its pages, and the forms of its steps. */
export function mountPortal(app: FastifyInstance, ctx: OperationContext, calls: CallCounts): void {
  const send = (reply: FastifyReply, page: PortalPage) =>
    page.location !== undefined
      ? reply.redirect(page.location, page.status)
      : reply.code(page.status).type('text/html; charset=utf-8').send(page.html);
  app.get('/portal/*', async (request, reply) => {
    calls.record('portal');
    return send(reply, servePortal(ctx, request.url, request.ip));
  });
  // A step's form fields (urlencoded, or a JSON object).
  for (const step of ['first-access', 'credentials'] as const) {
    app.post(`/portal/${step}`, async (request, reply) => {
      calls.record('portal');
      // A form is parsed as sent (URLSearchParams: the token endpoint's parser, simulator/webapi/routes.ts).
      const { body } = request;
      const fields =
        body instanceof URLSearchParams
          ? Object.fromEntries(body)
          : body !== null && typeof body === 'object'
            ? body
            : {};
      return send(reply, servePortalStep(ctx, step, fields as Record<string, unknown>, request.ip));
    });
  }
}
