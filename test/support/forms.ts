/** A firm's forms directory for tests: `forms.json` and small PDF-like files. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pdf } from './engine.js';

export const AGREEMENT = '3230';
export const DISCLOSURE = '3024';
export const TAX_FORM = '5002';

/**
 * Two agreements/disclosures (3230 with a zh-Hans variant, 3024) and a tax form (5002). `edition`
 * changes the content of 3230, as when the brokerage updates it on its forms server.
 */
export async function writeFormsDir(edition = 'a'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eca-forms-'));
  await rewriteForm(dir, AGREEMENT, edition);
  await writeFile(join(dir, `${AGREEMENT}.zh-Hans.pdf`), pdf(`${AGREEMENT}-zh-Hans`));
  await writeFile(join(dir, `${DISCLOSURE}.pdf`), pdf(DISCLOSURE));
  await writeFile(join(dir, `${TAX_FORM}.pdf`), pdf(TAX_FORM));
  const manifest = {
    forms: [
      {
        formNumber: AGREEMENT,
        title: 'Customer Agreement',
        file: `${AGREEMENT}.pdf`,
        'zh-Hans': `${AGREEMENT}.zh-Hans.pdf`,
      },
      { formNumber: DISCLOSURE, title: 'Privacy Notice', file: `${DISCLOSURE}.pdf` },
      { formNumber: TAX_FORM, title: 'W-8BEN', file: `${TAX_FORM}.pdf`, taxForm: true },
    ],
  };
  await writeFile(join(dir, 'forms.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

/** Replaces the agreement's PDF with another edition. */
export async function rewriteForm(dir: string, formNumber: string, edition: string): Promise<void> {
  await writeFile(join(dir, `${formNumber}.pdf`), pdf(`${formNumber}-edition-${edition}`));
}
