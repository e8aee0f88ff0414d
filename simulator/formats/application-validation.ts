/**
 * The content check of an application file in the brokerage's import schema (import-schema.ts), as validateXML
 * performs it: one error text per problem, naming elements and positions, never personal data. The spec's
 * examples are each checked: missing first name, missing last name, missing e-mail of an individual, missing
 * source of wealth, investment objectives mandatory, multiple titles only for an organization, invalid country of
 * issue, and the Customer prefix rule (lower-case letters as first and sixth characters).
 */
import { attr, childrenNamed } from '../../eca/xml-tree.js';
import type { XmlNode } from '../../eca/xml-tree.js';
import {
  accountsOf,
  customerOf,
  CUSTOMER_TYPES,
  detailsOf,
  holdersOf,
  investmentObjectivesOf,
  NATURAL_PERSON_TYPES,
  readImportFile,
  sourcesOfWealthOf,
} from './import-schema.js';

/** ISO 3166-1 alpha-3 country codes (officially assigned). */
export const ISO_3166_ALPHA3: ReadonlySet<string> = new Set(
  (
    'AFG ALA ALB DZA ASM AND AGO AIA ATA ATG ARG ARM ABW AUS AUT AZE BHS BHR BGD BRB BLR BEL BLZ BEN BMU BTN BOL ' +
    'BES BIH BWA BVT BRA IOT BRN BGR BFA BDI CPV KHM CMR CAN CYM CAF TCD CHL CHN CXR CCK COL COM COG COD COK CRI ' +
    'CIV HRV CUB CUW CYP CZE DNK DJI DMA DOM ECU EGY SLV GNQ ERI EST SWZ ETH FLK FRO FJI FIN FRA GUF PYF ATF GAB ' +
    'GMB GEO DEU GHA GIB GRC GRL GRD GLP GUM GTM GGY GIN GNB GUY HTI HMD VAT HND HKG HUN ISL IND IDN IRN IRQ IRL ' +
    'IMN ISR ITA JAM JPN JEY JOR KAZ KEN KIR PRK KOR KWT KGZ LAO LVA LBN LSO LBR LBY LIE LTU LUX MAC MDG MWI MYS ' +
    'MDV MLI MLT MHL MTQ MRT MUS MYT MEX FSM MDA MCO MNG MNE MSR MAR MOZ MMR NAM NRU NPL NLD NCL NZL NIC NER NGA ' +
    'NIU NFK MKD MNP NOR OMN PAK PLW PSE PAN PNG PRY PER PHL PCN POL PRT PRI QAT REU ROU RUS RWA BLM SHN KNA LCA ' +
    'MAF SPM VCT WSM SMR STP SAU SEN SRB SYC SLE SGP SXM SVK SVN SLB SOM ZAF SGS SSD ESP LKA SDN SUR SJM SWE CHE ' +
    'SYR TWN TJK TZA THA TLS TGO TKL TON TTO TUN TUR TKM TCA TUV UGA UKR ARE GBR USA UMI URY UZB VUT VEN VNM VGB ' +
    'VIR WLF ESH YEM ZMB ZWE'
  ).split(' '),
);

const IDENTIFICATION_KINDS: ReadonlyArray<[attribute: string, label: string]> = [
  ['DriversLicense', "driver's licence"],
  ['Passport', 'passport'],
  ['NationalCard', 'national identity card'],
];

function prefixProblem(prefix: string | undefined): boolean {
  if (prefix === undefined) return true;
  const isLowerLetter = (char: string | undefined): boolean => char !== undefined && /^[a-z]$/.test(char);
  return !isLowerLetter(prefix[0]) || !isLowerLetter(prefix[5]);
}

function customerErrors(customer: XmlNode, where: string): string[] {
  const errors: string[] = [];
  const type = attr(customer, 'type');
  if (type === undefined) errors.push(`${where}: Customer: the attribute type is missing`);
  else if (!(CUSTOMER_TYPES as readonly string[]).includes(type)) {
    errors.push(`${where}: Customer: unknown customer type ${type}`);
  }
  if (attr(customer, 'external_id') === undefined) {
    errors.push(`${where}: Customer: the attribute external_id is missing`);
  }
  // The import schema asks the individual's e-mail on Customer too, not only on each holder's details.
  if (type !== undefined && NATURAL_PERSON_TYPES.has(type) && attr(customer, 'email') === undefined) {
    errors.push(`${where}: Customer: missing e-mail address of the individual (the attribute email)`);
  }
  if (prefixProblem(attr(customer, 'prefix'))) {
    errors.push(`${where}: Customer: the attribute prefix must have lower-case letters as first and sixth characters`);
  }
  return errors;
}

function identificationErrors(details: XmlNode | undefined, at: string): string[] {
  return childrenNamed(details, 'Identification').flatMap((identification) => {
    const kind = IDENTIFICATION_KINDS.find(([attribute]) => attr(identification, attribute) !== undefined);
    if (!kind) return [];
    const country = attr(identification, 'IssuingCountry');
    if (country !== undefined && ISO_3166_ALPHA3.has(country)) return [];
    const found = country === undefined ? 'missing' : JSON.stringify(country);
    return [`${at}: invalid country of issue of the ${kind[1]}: ${found} (expected an ISO 3166 alpha-3 code)`];
  });
}

function holderErrors(holder: XmlNode, at: string, type: string | undefined): string[] {
  const errors: string[] = [];
  const details = detailsOf(holder);
  if (!details) return [`${at}: the AccountHolderDetails element is missing`];
  const name = childrenNamed(details, 'Name')[0];
  const email = childrenNamed(details, 'Email')[0];
  if (attr(name, 'first') === undefined) errors.push(`${at}: missing first name`);
  if (attr(name, 'last') === undefined) errors.push(`${at}: missing last name`);
  if (type !== undefined && NATURAL_PERSON_TYPES.has(type) && attr(email, 'email') === undefined) {
    errors.push(`${at}: missing e-mail address of an individual`);
  }
  if (childrenNamed(details, 'Title').length > 1 && type !== 'ORG') {
    errors.push(`${at}: multiple titles are allowed only for an organization`);
  }
  errors.push(...identificationErrors(details, at));
  if (sourcesOfWealthOf(holder).length === 0) errors.push(`${at}: missing source of wealth`);
  // The texts quote whom they are about, as a brokerage's may (simulator/README.md): personal data in free text.
  const who = [[attr(name, 'first'), attr(name, 'last')].filter(Boolean).join(' '), attr(email, 'email')].filter(
    Boolean,
  );
  return who.length > 0 ? errors.map((error) => `${error} (holder ${who.join(', ')})`) : errors;
}

function validateOne(application: XmlNode, index: number): string[] {
  const customer = customerOf(application);
  const externalId = attr(customer, 'external_id');
  const where = `Application ${index + 1}${externalId ? ` (external_id ${externalId})` : ''}`;
  if (!customer) return [`${where}: the Customer element is missing`];
  const errors = customerErrors(customer, where);
  const type = attr(customer, 'type');
  const holders = holdersOf(customer);
  if (holders.length === 0) errors.push(`${where}: Customer: no AccountHolder element`);
  holders.forEach((holder, holderIndex) => {
    errors.push(...holderErrors(holder, `${where}: AccountHolder ${holderIndex + 1}`, type));
  });
  const accounts = accountsOf(application);
  if (accounts.length === 0) errors.push(`${where}: Accounts: no Account element`);
  accounts.forEach((account, accountIndex) => {
    if (investmentObjectivesOf(account).length === 0) {
      errors.push(`${where}: Account ${accountIndex + 1}: investment objectives are mandatory`);
    }
  });
  return errors;
}

/**
 * validateXML's check: one error text per problem, an empty list when the file is valid. Never throws: a file the
 * brokerage cannot read (not well-formed, another root, outside the import-schema namespace) yields a single
 * error text. Texts name elements and positions, never personal data (a country code in error is quoted).
 */
export function validateApplicationStructure(xml: string): string[] {
  const file = readImportFile(xml);
  if (!file.ok) return [file.problem];
  const applications = childrenNamed(file.root, 'Application');
  if (applications.length === 0) return ['no Application element'];
  return applications.flatMap(validateOne);
}
