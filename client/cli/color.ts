/**
 * Colour in the terminal, and only there: `--color auto` (the default) paints when the stream is a
 * terminal, NO_COLOR is unset or empty and TERM is not `dumb`; FORCE_COLOR forces it; `--color
 * always|never` decides outright. JSON output is never painted.
 */
import type { WriteStream } from 'node:tty';
import { hasTag } from '../../domain/application-states.js';

export type ColorChoice = 'auto' | 'always' | 'never';

const CODES = { red: 31, green: 32, yellow: 33, cyan: 36, dim: 2, bold: 1 } as const;
export type Color = keyof typeof CODES;

let choice: ColorChoice = 'auto';

export function setColorChoice(value: ColorChoice): void {
  choice = value;
}

/** Whether text written to `stream` is painted. */
export function colorOn(stream: Pick<WriteStream, 'isTTY'> = process.stdout): boolean {
  if (choice !== 'auto') return choice === 'always';
  if (process.env.NO_COLOR) return false;
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && process.env.TERM !== 'dumb';
}

export function paint(color: Color, text: string, stream?: Pick<WriteStream, 'isTTY'>): string {
  return colorOn(stream) ? `\x1b[${CODES[color]}m${text}\x1b[0m` : text;
}

/**
 * The colour of a lifecycle state or an outcome: done well (an account opened, a run or request
 * completed), done badly (rejected, failed), waiting on people (a state that needs the client or staff).
 */
export function stateColor(state: string | undefined): Color | undefined {
  if (state === undefined) return undefined;
  if (/^(open|PROCESSED|started|COMPLETED|ok)$/.test(state)) return 'green';
  if (/^(rejected|failed|REJECTED|FAILED|TERMINATED|TIMED_OUT|UNCONFIRMED)$/.test(state)) return 'red';
  if (hasTag(state, 'needsClient') || hasTag(state, 'needsStaff')) return 'yellow';
  return undefined;
}

/** `state` painted by `stateColor`. */
export function paintState(state: string): string {
  const color = stateColor(state);
  return color ? paint(color, state) : state;
}
