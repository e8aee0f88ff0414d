import { earliestReplaceBy } from './evaluate.js';
import type { DailyDocumentsView } from './messages.js';

function cell(text: string | undefined): string {
  return (text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The day's workflow in the Temporal UI: per form Accepted or the reason, and what to replace by when. */
export function renderDocumentsDetails(view: DailyDocumentsView): string {
  const { result } = view;
  if (!result) return `**Daily documents** ${view.day ?? ''} · ${view.step}`;
  const lines = [
    `**Daily documents** ${result.day} (${result.timeZone}) · alert **${result.alert}**`,
    result.submitted
      ? `**Report:** ${result.reportFile ?? '—'} · ${result.accepted ? 'all accepted: applications carry only tax forms' : 'not all accepted: applications carry the PDFs'}`
      : `**Not submitted:** ${cell(result.error)}`,
  ];
  const replaceBy = earliestReplaceBy(result);
  if (replaceBy) {
    lines.push(
      `**Replace by ${replaceBy}:** ${result.replacements.map((replacement) => `form ${replacement.formNumber} (${cell(replacement.fileName)}) by ${replacement.replaceBy}`).join('; ')}`,
    );
  }
  if (result.forms.length > 0) {
    lines.push('', '| Form | File | Status |', '| --- | --- | --- |');
    for (const form of result.forms) {
      const changed = form.changedFrom ? ' (changed since the last day)' : '';
      lines.push(`| ${cell(form.formNumber)} | ${cell(form.fileName)} | ${cell(form.status)}${changed} |`);
    }
  }
  return lines.join('\n');
}
