/**
 * The brokerage's reader of application files in its import schema, the structure firms write (namespace
 * `http://www.interactivebrokers.com/schemas/IBCust_import`, matched by local names below it):
 *
 * ```
 * Applications
 *   Application
 *     Customer @type @external_id @prefix @email @input_language
 *       AccountHolder                       one per person (two for JOINT, the officers of an ORG)
 *         AccountHolderDetails @external_id
 *           Name @first @last
 *           Email @email
 *           Title @code                     several only for an ORG
 *           Identification @IssuingCountry and one of @DriversLicense @Passport @NationalCard
 *         FinancialInformation
 *           SourcesOfWealth/SourceOfWealth @source_type
 *     Accounts/Account @external_id
 *       InvestmentObjectives/objective      (also read as Objective)
 *     Users/User @external_user_id @prefix
 *     Documents/Document                    not read: the archive carries the PDFs
 * ```
 *
 * The engine reads far less (eca/application.ts, ENGINE_READS); the brokerage's checks are in
 * application-validation.ts.
 */
import { CUSTOMER_TYPES } from '../../eca/application.js';
import { IMPORT_SCHEMA_NAMESPACE } from '../../eca/request-xml.js';
import { attr, childrenNamed, firstChild, parseXmlTree, rootNamespace } from '../../eca/xml-tree.js';
import type { XmlNode } from '../../eca/xml-tree.js';

export { CUSTOMER_TYPES };

/** Customer types whose holders are natural persons: each holder needs an e-mail address. */
export const NATURAL_PERSON_TYPES: ReadonlySet<string> = new Set(['INDIVIDUAL', 'JOINT', 'IRA']);

/** One application as the brokerage acts on it when it opens the account. */
export interface ImportApplication {
  element: XmlNode;
  externalId?: string;
  customerType: string;
  /** The user-name prefix: the first `Users/User@prefix`, else `Customer@prefix`. */
  userPrefix?: string;
  /** `AccountHolderDetails@external_id` of each holder, in order (empty text when absent). */
  holderExternalIds: string[];
}

/** A file the brokerage can read, or why it cannot: not well-formed, another root, another namespace. */
export type ImportFile = { ok: true; root: XmlNode } | { ok: false; problem: string };

export function readImportFile(xml: string): ImportFile {
  let root: XmlNode;
  try {
    root = parseXmlTree(xml, 'applicationXml');
  } catch (cause) {
    const problem = cause instanceof Error ? cause.message.replace(/^applicationXml: /, '') : 'not well-formed';
    return { ok: false, problem };
  }
  if (root.name !== 'Applications') {
    return { ok: false, problem: `the root element must be Applications, found ${root.name}` };
  }
  const namespace = rootNamespace(xml, 'applicationXml');
  if (namespace !== IMPORT_SCHEMA_NAMESPACE) {
    return {
      ok: false,
      problem: `the root element Applications must be in the namespace ${IMPORT_SCHEMA_NAMESPACE}, found ${namespace ?? 'no namespace'}`,
    };
  }
  return { ok: true, root };
}

export function customerOf(application: XmlNode): XmlNode | undefined {
  return firstChild(application, 'Customer');
}

export function holdersOf(customer: XmlNode | undefined): XmlNode[] {
  return childrenNamed(customer, 'AccountHolder');
}

export function detailsOf(holder: XmlNode): XmlNode | undefined {
  return firstChild(holder, 'AccountHolderDetails');
}

export function sourcesOfWealthOf(holder: XmlNode): XmlNode[] {
  const sources = firstChild(firstChild(holder, 'FinancialInformation'), 'SourcesOfWealth');
  return childrenNamed(sources, 'SourceOfWealth').filter((source) => attr(source, 'source_type') !== undefined);
}

export function accountsOf(application: XmlNode): XmlNode[] {
  return childrenNamed(firstChild(application, 'Accounts'), 'Account');
}

export function investmentObjectivesOf(account: XmlNode): string[] {
  const list = firstChild(account, 'InvestmentObjectives');
  return [...childrenNamed(list, 'objective'), ...childrenNamed(list, 'Objective')]
    .map((objective) => objective.text)
    .filter((text) => text !== '');
}

export function readApplication(element: XmlNode): ImportApplication {
  const customer = customerOf(element);
  const user = firstChild(firstChild(element, 'Users'), 'User');
  const application: ImportApplication = {
    element,
    customerType: attr(customer, 'type') ?? '',
    holderExternalIds: holdersOf(customer).map((holder) => attr(detailsOf(holder), 'external_id') ?? ''),
  };
  const externalId = attr(customer, 'external_id');
  if (externalId !== undefined) application.externalId = externalId;
  const userPrefix = attr(user, 'prefix') ?? attr(customer, 'prefix');
  if (userPrefix !== undefined) application.userPrefix = userPrefix;
  return application;
}
