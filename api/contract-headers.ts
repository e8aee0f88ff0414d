/** The response headers the OpenAPI document declares (components.headers; api/contract.ts refers to them). */
export const HEADERS: Record<string, unknown> = {
  XRequestId: {
    description:
      "The request's id, also in the service's logs: the caller's own `X-Request-Id` when it is a plain token (1 to 64 of `A-Za-z0-9._:-`), otherwise one the service makes.",
    required: true,
    schema: { type: 'string' },
  },
  RateLimitLimit: { description: 'Requests a minute the API key may make.', schema: { type: 'integer' } },
  RateLimitRemaining: { description: "Requests left in the key's current minute.", schema: { type: 'integer' } },
  RateLimitReset: { description: 'Seconds until the minute ends.', schema: { type: 'integer' } },
  RetryAfter: { description: 'Seconds to wait before trying again.', required: true, schema: { type: 'integer' } },
  RetryAfterInFlight: {
    description: 'With `IDEMPOTENCY_KEY_IN_USE`: seconds to wait before sending the request again.',
    schema: { type: 'integer' },
  },
  IdempotentReplayed: {
    description: '`true`: the answer is the one kept for the `Idempotency-Key`, not a new one.',
    schema: { type: 'string', enum: ['true'] },
  },
  Location: { description: 'The URL of the resource made.', required: true, schema: { type: 'string' } },
  LocationWithheld: {
    description: 'With `IDEMPOTENT_ANSWER_WITHHELD`: the URL of the resource the first request made.',
    schema: { type: 'string' },
  },
  WWWAuthenticate: { description: '`Bearer realm="eca"`', schema: { type: 'string' } },
  CacheControl: { description: '`no-store`: the answer is not to be kept.', schema: { type: 'string' } },
};
