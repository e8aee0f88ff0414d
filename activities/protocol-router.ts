/**
 * One lifecycle, two protocols: the application workflow's activities go to the adapter of the protocol the
 * application is on: the XML service's (application.ts) or the Web API's (webapi-application.ts). The workflow
 * never knows which; nothing it records depends on it.
 *
 * An application stays on the protocol it started on (runtime/application-protocols.ts, in the engine's database):
 * a firm moved to the Web API mid-run leaves its running applications on the XML service until they end, and
 * only its new applications start on the Web API.
 * A maintenance request's reads name the protocol the request was sent on (`protocol`), whatever the account's pin.
 */
import type { ApplicationProtocols } from '../runtime/application-protocols.js';
import type { Protocol } from '../runtime/firm-settings.js';
import type { ApplicationActivities } from '../workflows/application/activities.js';

export interface ProtocolAdapters {
  /** The firm's protocol (runtime/firm-brokerages.ts `protocolOf`). */
  protocolOf: (csid: string) => Promise<Protocol>;
  adapters: Record<Protocol, ApplicationActivities>;
  /** The protocol each application started on. */
  pins: ApplicationProtocols;
}

type Input = { csid: string; protocol?: Protocol } & ({ externalId: string } | { accountId: string });

export function byProtocol({ protocolOf, adapters, pins }: ProtocolAdapters): ApplicationActivities {
  const protocolFor = (input: Input): Promise<Protocol> => {
    // A maintenance request's reads name the protocol it was sent on.
    if (input.protocol !== undefined) return Promise.resolve(input.protocol);
    const current = () => protocolOf(input.csid);
    const key = 'externalId' in input ? { externalId: input.externalId } : { accountId: input.accountId };
    return pins.of(input.csid, key, current);
  };
  const route =
    <K extends keyof ApplicationActivities>(name: K) =>
    async (input: Parameters<ApplicationActivities[K]>[0]): Promise<Awaited<ReturnType<ApplicationActivities[K]>>> => {
      const adapter = adapters[await protocolFor(input)];
      return (adapter[name] as (input: unknown) => Promise<Awaited<ReturnType<ApplicationActivities[K]>>>)(input);
    };
  return {
    validateApplication: route('validateApplication'),
    async createAccount(input) {
      const protocol = await protocolFor(input);
      const outcome = await adapters[protocol].createAccount(input);
      // The account's reads and requests go where its create went.
      if (outcome.created) await pins.pin(input.csid, { accountId: outcome.accountId }, protocol);
      return outcome;
    },
    readAccount: route('readAccount'),
    listAccountRequests: route('listAccountRequests'),
    sendApplicationUpdate: route('sendApplicationUpdate'),
    readRequestByFile: route('readRequestByFile'),
  };
}
