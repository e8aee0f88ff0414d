/**
 * Failures injected per operation through the control API, and the per-operation call counts that
 * tests read to check retries and merged polls.
 */
import { RateCap } from './rate-cap.js';

/**
 * `lost-response` processes the call as usual (an account is created, an update is taken), then
 * closes the socket instead of answering: the response is lost after the work was done.
 */
export const FAULT_KINDS = ['http500', 'http503', 'latency', 'timeout', 'malformed', 'drop', 'lost-response'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultInput {
  /** An operation name as in the spec (`getAccountStatus`, `sso/create`, `preference/set`) or `*`. */
  operation: string;
  kind: FaultKind;
  /** Probability per call, 0..1; 1 by default. */
  rate?: number;
  /** Applies to this many matching calls, then disappears; unlimited when absent. */
  count?: number;
  /** Delay for `latency`; how long a `timeout` holds the request before dropping it (default 120 s). */
  ms?: number;
}

export interface FaultRule extends FaultInput {
  id: number;
  rate: number;
}

export interface FaultDecision {
  latencyMs: number;
  /** The one failure that replaces the answer, if any. */
  failure?: FaultRule;
}

export class Faults {
  #rules: FaultRule[] = [];
  #nextId = 1;

  constructor(private readonly random: () => number = Math.random) {}

  add(input: FaultInput): FaultRule {
    const rule: FaultRule = { ...input, rate: input.rate ?? 1, id: this.#nextId++ };
    this.#rules.push(rule);
    return rule;
  }

  list(): FaultRule[] {
    return this.#rules.map((rule) => ({ ...rule }));
  }

  remove(id: number): boolean {
    const before = this.#rules.length;
    this.#rules = this.#rules.filter((rule) => rule.id !== id);
    return this.#rules.length !== before;
  }

  clear(): void {
    this.#rules = [];
  }

  /** Draws the faults of one call; a counted rule is used up only when it fires. */
  decide(operation: string): FaultDecision {
    const decision: FaultDecision = { latencyMs: 0 };
    if (this.#rules.length === 0) return decision;
    for (const rule of this.#rules) {
      if (rule.operation !== operation && rule.operation !== '*') continue;
      if (rule.kind !== 'latency' && decision.failure) continue;
      if (rule.rate < 1 && this.random() >= rule.rate) continue;
      if (rule.count !== undefined) rule.count -= 1;
      if (rule.kind === 'latency') decision.latencyMs += rule.ms ?? 1000;
      else decision.failure = rule;
    }
    this.#rules = this.#rules.filter((rule) => rule.count === undefined || rule.count > 0);
    return decision;
  }
}

export class CallCounts {
  #counts = new Map<string, number>();
  /** The same calls per second of real time, and the cap the simulator may hold them to. */
  readonly rates = new RateCap();

  record(operation: string): void {
    this.#counts.set(operation, (this.#counts.get(operation) ?? 0) + 1);
  }

  get(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }

  reset(): void {
    this.#counts.clear();
    this.rates.reset();
  }
}
