import type { FastifyReply } from 'fastify';
import { WebApiRefusal } from './authority.js';

/** Sends what `work` answers, or its refusal as an RFC 9457 problem (a 401 with its `WWW-Authenticate`). */
export async function answer(reply: FastifyReply, work: () => unknown): Promise<FastifyReply> {
  try {
    return await reply.code(200).send(await work());
  } catch (error) {
    if (!(error instanceof WebApiRefusal)) throw error;
    if (error.status === 401) void reply.header('www-authenticate', 'Bearer error="invalid_token"');
    return reply.code(error.status).type('application/problem+json').send(error.problem);
  }
}
