/**
 * The firm's application XML (the brokerage's import schema, eca/application.ts) as the Web API's JSON
 * `Application`: the one place where the two shapes meet, so that a firm writes one application for either
 * protocol and a change of the document's shape is made here alone.
 *
 * - The structure the document names is mapped by name: `Customer` → `customer` (its holders where its type
 *   puts them: `accountHolder.accountHolderDetails`, `jointHolders.firstHolderDetails` / `secondHolderDetails`,
 *   `organization.associatedEntities.associatedIndividuals`, `trust.trustees.individuals`), `Accounts/Account`
 *   → `accounts[]`, `Users/User` → `users[]`, `SourcesOfWealth/SourceOfWealth` → `sourcesOfWealth[]`,
 *   `InvestmentObjectives/objective` → `investmentObjectives[]`, `TradingPermissions/TradingPermission` →
 *   `tradingPermissions[]`.
 * - Everything else is carried, never dropped: an element becomes the property of its name in camel case
 *   (renamed where the document names it otherwise: `DOB` → `dateOfBirth`, `Residence` → `residenceAddress`),
 *   its attributes the properties of theirs (`street_1` → `street1`), a text-only element its text, and
 *   `true` / `false` booleans.
 * - The PDFs go in `documents[]`, each with its bytes in `payload.data`: the Web API's body is JSON, not an
 *   archive.
 */
import { ENGINE_READS } from '../eca/application.js';
import { attr, childrenNamed, firstChild, parseXmlTree } from '../eca/xml-tree.js';
import type { XmlNode } from '../eca/xml-tree.js';
import { EcaRequestError } from '../eca/index.js';
import { WebApiApplication } from '../webapi/index.js';
import type { AssociatedIndividual, WebApiDocument } from '../webapi/index.js';

/** Elements whose property the document names otherwise than their camel-cased name. */
const ELEMENT_NAMES: Record<string, string> = {
  DOB: 'dateOfBirth',
  Residence: 'residenceAddress',
  MailingAddress: 'mailingAddress',
  AccountHolderDetails: 'accountHolderDetails',
};

/** Attributes the document spells otherwise than their camel-cased name. */
const ATTRIBUTE_NAMES: Record<string, string> = { multicurrency: 'multiCurrency' };

/** Lists: the container element and the property its items make. */
const LISTS: Record<string, { item: string; property: string }> = {
  SourcesOfWealth: { item: 'SourceOfWealth', property: 'sourcesOfWealth' },
  InvestmentObjectives: { item: 'objective', property: 'investmentObjectives' },
  TradingPermissions: { item: 'TradingPermission', property: 'tradingPermissions' },
};

export function camelCase(name: string): string {
  const words = name.split(/[_\-\s]+/).filter(Boolean);
  const joined = words.map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join('');
  return joined[0]!.toLowerCase() + joined.slice(1);
}

function value(text: string): string | boolean {
  return text === 'true' ? true : text === 'false' ? false : text;
}

/** One element as JSON: its attributes and children as properties; a text-only element is its text. */
function mapped(node: XmlNode): unknown {
  const out: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(node.attributes)) {
    if (name.startsWith('xmlns')) continue;
    out[ATTRIBUTE_NAMES[name] ?? camelCase(name)] = value(text);
  }
  for (const child of node.children) {
    const list = LISTS[child.name];
    if (list) {
      out[list.property] = childrenNamed(child, list.item).map((item) => mapped(item));
      continue;
    }
    const key = ELEMENT_NAMES[child.name] ?? camelCase(child.name);
    const item = mapped(child);
    // A repeated element is a list.
    if (key in out) out[key] = [...(Array.isArray(out[key]) ? (out[key] as unknown[]) : [out[key]]), item];
    else out[key] = item;
  }
  if (Object.keys(out).length === 0) return value(node.text);
  return out;
}

/** A holder (`AccountHolder`) as an `AssociatedIndividual`, and its financial information apart. */
function holder(node: XmlNode): { person: AssociatedIndividual; financial: unknown[] } {
  const details = firstChild(node, 'AccountHolderDetails');
  const mappedDetails = (details ? mapped(details) : {}) as Record<string, unknown>;
  const { email, title, ...rest } = mappedDetails;
  const titles = (Array.isArray(title) ? title : title === undefined ? [] : [title]) as Array<{ code?: string }>;
  const person = {
    ...rest,
    name: (mappedDetails.name ?? {}) as AssociatedIndividual['name'],
    ...(email !== undefined && { email: typeof email === 'object' ? (email as { email?: string }).email : email }),
    ...(titles.length > 0 && { titles: titles.map((entry) => ({ value: entry.code ?? '' })) }),
  } as AssociatedIndividual;
  return { person, financial: childrenNamed(node, 'FinancialInformation').map((element) => mapped(element)) };
}

/** The holders where the customer's type puts them, their financial information beside them. */
function holdersBlock(type: string, holders: Array<ReturnType<typeof holder>>): Record<string, unknown> {
  const people = holders.map((entry) => entry.person);
  const financial = holders.flatMap((entry) => entry.financial);
  const withFinancial = (block: Record<string, unknown>) =>
    financial.length > 0 ? { ...block, financialInformation: financial } : block;
  if (type === 'JOINT') {
    return {
      jointHolders: withFinancial({ firstHolderDetails: people.slice(0, 1), secondHolderDetails: people.slice(1) }),
    };
  }
  if (type === 'ORG') return { organization: withFinancial({ associatedEntities: { associatedIndividuals: people } }) };
  if (type === 'TRUST') return { trust: withFinancial({ trustees: { individuals: people } }) };
  return { accountHolder: withFinancial({ accountHolderDetails: people }) };
}

/**
 * The application XML's one application as the Web API's `Application`, checked against the document's
 * types; a file that holds no application, or several, or maps to no valid body, is an EcaRequestError
 * naming what is wrong.
 */
export function applicationJsonOf(xml: string, documents: WebApiDocument[] = []): WebApiApplication {
  const root = parseXmlTree(xml, 'applicationXml');
  const applications = childrenNamed(root, 'Application');
  if (applications.length !== 1) {
    throw new EcaRequestError('applicationXml', `one Application element expected, found ${applications.length}`);
  }
  const application = applications[0]!;
  const customerNode = firstChild(application, 'Customer');
  const {
    accountHolder: _holders,
    inputLanguage,
    ...customer
  } = (customerNode ? mapped({ ...customerNode, children: [] }) : {}) as Record<string, unknown>;
  const type = attr(customerNode, 'type') ?? '';
  const holders = childrenNamed(customerNode, 'AccountHolder').map(holder);
  const others = customerNode?.children.filter((child) => child.name !== 'AccountHolder') ?? [];
  const body = {
    customer: {
      ...customer,
      ...Object.fromEntries(others.map((child) => [ELEMENT_NAMES[child.name] ?? camelCase(child.name), mapped(child)])),
      ...holdersBlock(type, holders),
    },
    accounts: childrenNamed(firstChild(application, 'Accounts'), 'Account').map((node) => mapped(node)),
    users: childrenNamed(firstChild(application, 'Users'), 'User').map((node) => mapped(node)),
    ...(documents.length > 0 && { documents }),
    ...(inputLanguage !== undefined && { inputLanguage }),
  };
  const checked = WebApiApplication.safeParse(body);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const field = issue.path.join('.');
    const hint = field === 'customer.externalId' ? ` (${ENGINE_READS.externalId})` : '';
    throw new EcaRequestError('applicationXml', `as the Web API's application, ${field}${hint}: ${issue.message}`);
  }
  return checked.data;
}
