/** The brokerage protocols a firm can be on: the XML service (`xml`) or the Web API (`webapi`, OAuth 2.0). */
export const PROTOCOLS = ['xml', 'webapi'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** Each protocol as people read it (the CLI, logs). */
export const PROTOCOL_NAMES: Readonly<Record<Protocol, string>> = {
  xml: 'the XML service',
  webapi: 'the Web API (OAuth 2.0)',
};
