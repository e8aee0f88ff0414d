/**
 * One lifecycle, two protocols: the application workflow's activities go to the adapter of the protocol its
 * firm is on (the firm's settings' `protocol`): the XML service's (application.ts) or the Web API's
 * (webapi-application.ts). The workflow never knows which; nothing it records depends on it.
 */
import type { Protocol } from '../runtime/firm-settings.js';
import type { ApplicationActivities } from '../workflows/application/activities.js';

export interface ProtocolAdapters {
  /** The firm's protocol (runtime/firm-brokerages.ts `protocolOf`). */
  protocolOf: (csid: string) => Promise<Protocol>;
  adapters: Record<Protocol, ApplicationActivities>;
}

export function byProtocol({ protocolOf, adapters }: ProtocolAdapters): ApplicationActivities {
  const route =
    <K extends keyof ApplicationActivities>(name: K) =>
    async (input: Parameters<ApplicationActivities[K]>[0]): Promise<Awaited<ReturnType<ApplicationActivities[K]>>> => {
      const adapter = adapters[await protocolOf(input.csid)];
      return (adapter[name] as (input: unknown) => Promise<Awaited<ReturnType<ApplicationActivities[K]>>>)(input);
    };
  return {
    validateApplication: route('validateApplication'),
    createAccount: route('createAccount'),
    readAccount: route('readAccount'),
    listAccountRequests: route('listAccountRequests'),
    sendApplicationUpdate: route('sendApplicationUpdate'),
    readRequestByFile: route('readRequestByFile'),
  };
}
