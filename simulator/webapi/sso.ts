/**
 * `POST /gw/api/v1/sso-browser-sessions`: a session of the hosted portal for an end user, as sso/create makes
 * one (operations/sso.ts): the same portal, the same 60-s life bound to the one IP sent, the user one of the
 * client's firm's accounts. The body is the document's `CreateBrowserSessionRequest` (`credential`, `ip`),
 * signed; the answer its `CreateBrowserSessionResponse` (`active`, `url`).
 */
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SsoSessions } from '../sso-sessions.js';
import { portalSession } from '../operations/sso.js';
import type { Store } from '../store.js';
import { answer } from './answer.js';
import { WebApiRefusal } from './authority.js';
import type { WebApiAuthority } from './authority.js';

const CreateBrowserSessionRequest = z.strictObject({
  credential: z.string().min(1),
  ip: z.string().refine((ip) => isIP(ip) !== 0, 'one IPv4 or IPv6 address'),
});

export interface PortalSessions {
  sessions: SsoSessions;
  /** The portal's URL, known once the server listens. */
  portalUrl: () => string;
}

export function registerBrowserSessions(
  app: FastifyInstance,
  authority: WebApiAuthority,
  store: Store,
  portal: PortalSessions,
): void {
  app.post('/gw/api/v1/sso-browser-sessions', (request, reply) =>
    answer(reply, () => {
      const client = authority.authenticate(request.headers.authorization, 'sso-browser-sessions.write');
      const parsed = CreateBrowserSessionRequest.safeParse(authority.signedBody(request.body, client));
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new WebApiRefusal(400, `${issue.path.join('.') || 'body'}: ${issue.message}`);
      }
      const { credential, ip } = parsed.data;
      // The document shows no URL's shape: the XML service's, session id and all.
      const url = portalSession(store, portal.sessions, portal.portalUrl(), {
        csid: client.csid,
        userName: credential,
        ip,
      });
      if (url === undefined) throw new WebApiRefusal(400, `Unknown user name ${credential}`);
      return { active: true, url };
    }),
  );
}
