import type { ApplicationStateView } from './messages.js';

function time(ms: number | undefined): string {
  return ms === undefined ? '—' : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** Escapes what would break a markdown table cell. */
function cell(text: string | undefined): string {
  return (text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/**
 * The workflow's current details in the Temporal UI: state, account, tasks and next poll, so that a
 * person sees where the application stands without reading payloads. No personal data: task names
 * and states come from the brokerage's form catalogue.
 */
export function renderDetails(view: ApplicationStateView): string {
  const lines = [
    `**State:** ${view.lifecycleState}${view.done ? ' (final)' : ''}`,
    `**Account:** ${view.accountId ?? '—'} · status ${view.status ?? '—'}${view.stateText ? ` · ${view.stateText}` : ''}`,
    `**Last poll:** ${time(view.lastPollAt)} · **next poll:** ${time(view.nextPollAt)}`,
  ];
  if (view.corrections.length > 0) lines.push(`**Needs correction:** ${view.corrections.map(cell).join('; ')}`);
  if (view.lastRefusal) lines.push(`**Last refusal:** ${cell(view.lastRefusal)}`);
  if (view.unconfirmed) {
    const { step, reason, responseFile } = view.unconfirmed;
    lines.push(
      `**Unconfirmed ${step}:** ${cell(reason)}${responseFile ? ` (response file ${cell(responseFile)})` : ''}`,
      step === 'create'
        ? '**Staff:** check the file with the brokerage, then update `retry` (look again), `resubmit` (the file made no account: create again) or `abandon` (ends the application; an account the file may have made, not found here, stays at the brokerage)'
        : '**Staff:** update `retry` (follow the same request again) or `abandon`',
    );
  }
  if (view.waitingDocuments.length > 0) lines.push(`**Documents to send:** forms ${view.waitingDocuments.join(', ')}`);
  if (view.pendingTasks.length > 0) {
    lines.push('', '| Form | Task | Action | State |', '| --- | --- | --- | --- |');
    for (const task of view.pendingTasks) {
      const state = task.reason ? `${task.state ?? ''} (${task.reason})` : task.state;
      lines.push(`| ${cell(task.formNumber)} | ${cell(task.formName)} | ${cell(task.action)} | ${cell(state)} |`);
    }
  }
  return lines.join('\n');
}
