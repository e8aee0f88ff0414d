/** What the commands print for people: tables and descriptions; `--json` prints the value itself. */
import type { ApplicationStateView } from '../../workflows/application/messages.js';
import type { ApplicationListEntry } from '../applications.js';

export function out(json: boolean | undefined, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}

/** An instant to the second: milliseconds are noise in a terminal. */
export function time(ms: number | Date | undefined): string {
  return ms === undefined ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A plain text table: columns padded to their widest cell. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

function pendingTasksTable(view: ApplicationStateView): string {
  return table(
    ['FORM', 'TASK', 'ACTION', 'STATE'],
    view.pendingTasks.map((task) => [
      task.formNumber,
      task.formName,
      task.action,
      task.reason ? `${task.state ?? ''}: ${task.reason}` : (task.state ?? ''),
    ]),
  );
}

export function describeState(view: ApplicationStateView): string {
  const lines = [
    `application  ${view.externalId} (CSID ${view.csid})`,
    `state        ${view.lifecycleState}${view.done ? ' (final)' : ''}`,
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
      view.transitions.map((transition) => [time(transition.at), transition.state, transition.event]),
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
      entry.lifecycleState ?? '-',
      entry.accountStatus ?? '-',
      entry.status,
      time(entry.startTime),
    ]),
  );
}
