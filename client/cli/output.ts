/**
 * What the commands print: tables and descriptions for people (`-o text`), the value itself for
 * scripts (`-o json`: one document; `-o jsonl`: one compact line per item of a list, else one line).
 */
import type { ApplicationStateView } from '../../workflows/application/messages.js';
import type { ApplicationListEntry } from '../listing.js';
import { paintState } from './color.js';

export const OUTPUT_FORMATS = ['text', 'json', 'jsonl'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** `value` as `format` asks, with a final newline; `text` is called for `-o text` only. */
export function formatted(format: OutputFormat, value: unknown, text: () => string): string {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  if (format === 'jsonl') {
    const items = Array.isArray(value) ? value : [value];
    return items.map((item) => `${JSON.stringify(item)}\n`).join('');
  }
  return `${text()}\n`;
}

let stdoutGone = false;

/** A write error on stdout (its reader went away, EPIPE: `eca … | head -1`) or stderr: ended quietly. */
function onStdoutError(): void {
  stdoutGone = true;
}
function onStderrError(): void {}

/**
 * Makes a closed stdout or stderr end the output quietly: without a handler Node throws the stream's
 * EPIPE as an uncaught 'error' event, a stack trace and exit 1. With it nothing more is written to
 * stdout, and the command ends with the exit code it would have had (0 after help). Installed once.
 */
export function quietWhenOutputCloses(): void {
  if (!process.stdout.listeners('error').includes(onStdoutError)) process.stdout.on('error', onStdoutError);
  if (!process.stderr.listeners('error').includes(onStderrError)) process.stderr.on('error', onStderrError);
}

/** Whether stdout has been closed by its reader: a command that would go on writing stops. */
export function outputClosed(): boolean {
  return stdoutGone;
}

export function out(format: OutputFormat, value: unknown, text: () => string): void {
  if (!stdoutGone) process.stdout.write(formatted(format, value, text));
}

/** Whether `format` is for scripts. */
export function isJson(format: OutputFormat): boolean {
  return format !== 'text';
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/** The width a cell takes on screen (colour codes take none). */
function visible(text: string): number {
  return text.replace(ANSI, '').length;
}

/** An instant to the second: milliseconds are noise in a terminal. */
export function time(ms: number | Date | undefined): string {
  return ms === undefined ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A plain text table: columns padded to their widest cell. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => visible(row[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell + ' '.repeat(Math.max(0, (widths[i] ?? 0) - visible(cell))))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

function pendingTasksTable(view: ApplicationStateView): string {
  const rows = table(
    ['FORM', 'TASK', 'ACTION', 'STATE'],
    view.pendingTasks.map((task) => [
      task.formNumber,
      task.formName,
      task.action,
      task.reason ? `${task.state ?? ''}: ${task.reason}` : (task.state ?? ''),
    ]),
  );
  // The Web API's pages for the account holder, one line each: a table cell would cut them.
  const links = view.pendingTasks.flatMap((task) =>
    task.url ? [`form ${task.formNumber}: ${task.url}${task.urlExpiresAt ? ` (until ${task.urlExpiresAt})` : ''}`] : [],
  );
  return links.length > 0 ? [rows, '', ...links].join('\n') : rows;
}

export function describeState(view: ApplicationStateView): string {
  const lines = [
    `application  ${view.externalId} (CSID ${view.csid})`,
    `state        ${paintState(view.lifecycleState)}${view.done ? ' (final)' : ''}`,
    `account      ${view.accountId ?? '-'}  status ${view.status ?? '-'}${view.stateText ? `  ${view.stateText}` : ''}`,
    `polls        last ${time(view.lastPollAt)}  next ${time(view.nextPollAt)}`,
  ];
  if (view.corrections.length > 0) lines.push(`correct      ${view.corrections.join('\n             ')}`);
  if (view.lastRefusal) lines.push(`refused      ${view.lastRefusal}`);
  if (view.unconfirmed) lines.push(`unconfirmed  ${view.unconfirmed.step}: ${view.unconfirmed.reason}`);
  if (view.blocked) {
    const { step, errorType, reason, since } = view.blocked;
    lines.push(
      `blocked      ${step} since ${time(since)}: ${errorType}: ${reason}`,
      `             eca retry / resubmit / abandon`,
    );
  }
  if (view.waitingDocuments.length > 0) lines.push(`to send      forms ${view.waitingDocuments.join(', ')}`);
  if (view.pendingTasks.length > 0) lines.push('', pendingTasksTable(view));
  lines.push(
    '',
    table(
      ['AT', 'STATE', 'EVENT'],
      view.transitions.map((transition) => [time(transition.at), paintState(transition.state), transition.event]),
    ),
  );
  return lines.join('\n');
}

export function listTable(entries: ApplicationListEntry[]): string {
  return table(
    ['EXTERNAL ID', 'ACCOUNT', 'STATE', 'STATUS', 'WORKFLOW', 'STARTED'],
    entries.map((entry) => [
      entry.externalId ?? '-',
      entry.accountId ?? '-',
      paintState(entry.lifecycleState ?? '-'),
      entry.accountStatus ?? '-',
      entry.status,
      time(entry.startTime),
    ]),
  );
}
