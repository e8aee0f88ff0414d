import { hasTag } from '../../domain/application-states.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import type { ApplicationStateView } from './messages.js';

/** Escapes what markdown would read as markup (text from staff, signal names, the brokerage) for a line or a table cell. */
function cell(text: string | undefined): string {
  return (text ?? '').replace(/[\\`*_[\]<>|#]/g, '\\$&').replace(/\n/g, ' ');
}

/** One staff action: what it does and how to send it from the eca CLI and the temporal CLI. */
interface Action {
  what: string;
  eca: string;
  /** The same with the temporal CLI: the update, and the signal where the message is one too. */
  temporal?: string[];
}

/**
 * What staff can do next in each state a person may act on, with the exact commands (the temporal CLI
 * needs `--codec-endpoint` and `--codec-auth` to print the encrypted answer; docs/operate.md: the staff guide).
 */
function actions(view: ApplicationStateView, wf: string): Action[] {
  const id = view.externalId;
  // Through the codec server, so that the input is encrypted in history and the answer printed.
  const codec = ' --codec-endpoint "$ECA_CODEC_ENDPOINT" --codec-auth "Bearer $ECA_CODEC_SERVER_TOKEN"';
  // Every staff message carries an input (`{}` at least): the codec server encrypts it.
  const input = (json: string) => ` --input '${json}'${codec}`;
  const both = (name: string, json = '{}') => [
    `temporal workflow update execute --workflow-id ${wf} --name ${name}${input(json)}`,
    `temporal workflow signal --workflow-id ${wf} --name ${name}${input(json)}`,
  ];
  const abandon: Action = {
    what: 'abandon the application at the brokerage',
    eca: `eca abandon ${id} --reason "…"`,
    temporal: both('abandon', '{"reason":"…"}'),
  };
  const pollNow: Action = {
    what: 'read the account now instead of at the next poll',
    eca: `eca poll-now ${id}`,
    temporal: [`temporal workflow signal --workflow-id ${wf} --name pollNow${input('{}')}`],
  };
  // The states the sweep reads wait for the account to change: it can be read now, or abandoned.
  if (hasTag(view.lifecycleState, 'swept')) {
    const provide: Action = {
      what: 'provide the documents asked for',
      eca: `eca provide-docs ${id} <form>:file.pdf …`,
    };
    return [...(view.lifecycleState === 'needsDocuments' ? [provide] : []), abandon, pollNow];
  }
  switch (view.lifecycleState) {
    case 'needsCorrection':
      return [{ what: 'send the corrected application XML', eca: `eca resubmit ${id} corrected.xml` }, abandon];
    case 'abandoned':
      return [{ what: 'reset the application at the brokerage', eca: `eca reset ${id}`, temporal: both('reset') }];
    case 'unconfirmed':
      if (view.unconfirmed?.step === 'create') {
        return [
          {
            what: 'check the file with the brokerage, then look again',
            eca: `eca retry ${id}`,
            temporal: both('retry'),
          },
          { what: 'create again (the file made no account)', eca: `eca resubmit ${id} application.xml` },
          {
            ...abandon,
            what: 'end the application (an account the file may have made, not found here, stays at the brokerage)',
          },
        ];
      }
      return [
        {
          what: 'follow the same request again (nothing is sent twice)',
          eca: `eca retry ${id}`,
          temporal: both('retry'),
        },
        abandon,
      ];
    case 'blocked': {
      const retry: Action = {
        what: 'run the step again once its cause is mended (an update follows the request it may have sent)',
        eca: `eca retry ${id}`,
        temporal: both('retry'),
      };
      if (view.accountId === undefined) {
        const end =
          view.blocked?.step === 'create'
            ? 'end the application (an account a create processed before the failure stays at the brokerage: check getResponseFile first)'
            : abandon.what;
        return [
          retry,
          { what: 'replace the application XML', eca: `eca resubmit ${id} application.xml` },
          { ...abandon, what: end },
        ];
      }
      return [retry, abandon];
    }
    default:
      return [];
  }
}

function time(ms: number | undefined): string {
  return ms === undefined ? '—' : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/**
 * The workflow's current details in the Temporal UI: state, account, tasks and next poll, so that a
 * person sees where the application stands without reading payloads. No personal data: task names
 * and states come from the brokerage's form catalogue. The staff commands name `workflowId`: the
 * workflow's own.
 */
export function renderDetails(
  view: ApplicationStateView,
  workflowId = applicationWorkflowId(view.csid, view.externalId),
): string {
  // One paragraph per fact: the UI's markdown joins lines that no blank line separates.
  const blocks = [
    `**State:** ${view.lifecycleState}${view.done ? ' (final)' : ''}`,
    `**Account:** ${view.accountId ?? '—'} · status ${view.status ?? '—'}${view.stateText ? ` · ${view.stateText}` : ''}`,
    `**Last poll:** ${time(view.lastPollAt)} · **next poll:** ${time(view.nextPollAt)}`,
  ];
  if (view.deadline) {
    const { state, due, nextReminderAt, overdue, escalation } = view.deadline;
    const reminder = nextReminderAt === undefined ? '' : ` · next reminder ${time(nextReminderAt)}`;
    const then =
      escalation === 'none' ? '' : ` · then ${escalation === 'abandon' ? 'abandoned' : 'escalated to staff'}`;
    blocks.push(`**Deadline (${state}):** ${overdue ? 'overdue since' : 'due'} ${time(due)}${reminder}${then}`);
  }
  if (view.corrections.length > 0) blocks.push(`**Needs correction:** ${view.corrections.map(cell).join('; ')}`);
  if (view.lastRefusal) blocks.push(`**Last refusal:** ${cell(view.lastRefusal)}`);
  if (view.abandonReason) blocks.push(`**Abandoned by staff:** ${cell(view.abandonReason)}`);
  if (view.unconfirmed) {
    const { step, reason, responseFile } = view.unconfirmed;
    blocks.push(
      `**Unconfirmed ${step}:** ${cell(reason)}${responseFile ? ` (response file ${cell(responseFile)})` : ''}`,
    );
  }
  if (view.inDoubt) {
    const { step, since, reason } = view.inDoubt;
    const what = step === 'create' ? 'resubmit only once the brokerage says it never arrived' : 'only looked for';
    blocks.push(
      `**In doubt: ${step}${since ? ` sent ${time(since)}` : ''}** (may have been received${reason ? `: ${cell(reason)}` : ''}); ${what}`,
    );
  }
  if (view.blocked) {
    const { step, errorType, reason, since } = view.blocked;
    blocks.push(`**Blocked at ${step} since ${time(since)}:** ${cell(errorType)}: ${cell(reason)}`);
  }
  if (view.waitingDocuments.length > 0) blocks.push(`**Documents to send:** forms ${view.waitingDocuments.join(', ')}`);
  if (view.pendingTasks.length > 0) {
    const rows = view.pendingTasks.map((task) => {
      const state = task.reason ? `${task.state ?? ''} (${task.reason})` : task.state;
      return `| ${cell(task.formNumber)} | ${cell(task.formName)} | ${cell(task.action)} | ${cell(state)} |`;
    });
    blocks.push(['| Form | Task | Action | State |', '| --- | --- | --- | --- |', ...rows].join('\n'));
  }
  const next = actions(view, workflowId);
  if (next.length > 0) {
    blocks.push('**What staff can do now:**');
    for (const action of next) {
      const commands = [action.eca, ...(action.temporal ?? [])].map((command) => `\`${command}\``);
      blocks.push(`→ ${action.what}: ${commands.join(' · or ')}`);
    }
  }
  const notices = view.staffNotices ?? [];
  if (notices.length > 0) {
    blocks.push('**Staff signals received:**');
    for (const notice of notices.slice(-5)) {
      const detail = notice.detail ? `: ${cell(notice.detail)}` : '';
      blocks.push(`${time(notice.at)} \`${notice.name.replace(/`/g, "'")}\` ${notice.outcome}${detail}`);
    }
  }
  return blocks.join('\n\n');
}
