/** The hosted portal's landing pages an SSO link may open (the spec's table, as data). No I/O, no crypto. */
import landingPages from './data/landing-pages.json' with { type: 'json' };

export interface LandingPage {
  /** Unique id (display names repeat with different parameters). */
  id: string;
  /** The target as the spec names it. */
  name: string;
  /** The parameters appended to the session URL, verbatim (case and space sensitive), with placeholders. */
  query: string;
  note?: string;
}

/**
 * The spec's whole landing-page table, one entry per row and in its order (the auto-select row's funding variant
 * is an entry of its own). Query texts are verbatim, odd casing included, because the portal is case sensitive.
 * Placeholders: `<sid>`, `<account_id>`, `<master_account_id>`. The table is data: data/landing-pages.json.
 */
export const LANDING_PAGES: readonly LandingPage[] = landingPages;

export const LANDING_PAGES_BY_ID: ReadonlyMap<string, LandingPage> = new Map(
  LANDING_PAGES.map((page) => [page.id, page]),
);

export function findLandingPage(id: string): LandingPage | undefined {
  return LANDING_PAGES_BY_ID.get(id);
}
