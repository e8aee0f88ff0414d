import { inspect } from 'node:util';

/**
 * A secret text (a temporary password): printing, string conversion and JSON serialisation all yield a placeholder,
 * so it cannot reach a log line or a workflow history by accident. `reveal()` is the one deliberate way out.
 */
export class SecretString {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[secret]';
  }

  toJSON(): string {
    return '[secret]';
  }

  [inspect.custom](): string {
    return '[secret]';
  }
}
