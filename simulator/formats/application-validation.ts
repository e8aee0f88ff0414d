/**
 * Structural validation of the account application XML as the brokerage's validateXML performs it, against the
 * layout eca/application.ts defines: one error text per problem, naming elements and positions, never personal data.
 */
import { applicationsOf, CUSTOMER_TYPES } from '../../eca/application.js';
import { attr, childrenNamed, descend, firstChild, parseXmlTree } from '../../eca/xml-tree.js';
import type { XmlNode } from '../../eca/xml-tree.js';

/** Customer types whose holders are natural persons: the customer needs an e-mail address. */
const NATURAL_PERSON_TYPES: ReadonlySet<string> = new Set(['INDIVIDUAL', 'JOINT', 'IRA']);

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

function validateOne(application: XmlNode, index: number): string[] {
  const errors: string[] = [];
  const customer = firstChild(application, 'Customer');
  const externalId = attr(customer, 'external_id');
  const where = `Application ${index + 1}${externalId ? ` (external_id ${externalId})` : ''}`;
  if (!customer) return [`${where}: the Customer element is missing`];

  const type = attr(customer, 'type');
  if (type === undefined) errors.push(`${where}: Customer: the attribute type is missing`);
  else if (!(CUSTOMER_TYPES as readonly string[]).includes(type)) {
    errors.push(`${where}: Customer: unknown customer type ${type}`);
  }
  if (externalId === undefined) errors.push(`${where}: Customer: the attribute external_id is missing`);
  if (prefixProblem(attr(customer, 'prefix'))) {
    errors.push(`${where}: Customer: the attribute prefix must have lower-case letters as first and sixth characters`);
  }
  if (type !== undefined && NATURAL_PERSON_TYPES.has(type) && attr(customer, 'email') === undefined) {
    errors.push(`${where}: Customer: missing e-mail address of an individual`);
  }

  const holders = childrenNamed(customer, 'AccountHolder');
  if (holders.length === 0) errors.push(`${where}: Customer: no AccountHolder element`);
  holders.forEach((holder, holderIndex) => {
    const at = `${where}: AccountHolder ${holderIndex + 1}`;
    const details = firstChild(holder, 'Details');
    const name = firstChild(details, 'Name');
    if (attr(name, 'first') === undefined) errors.push(`${at}: missing first name`);
    if (attr(name, 'last') === undefined) errors.push(`${at}: missing last name`);
    const sources = childrenNamed(firstChild(details, 'SourcesOfWealth'), 'SourceOfWealth').filter(
      (source) => attr(source, 'source_type') !== undefined,
    );
    if (sources.length === 0) errors.push(`${at}: missing source of wealth`);
    if (childrenNamed(details, 'Title').length > 1 && type !== 'ORG') {
      errors.push(`${at}: multiple titles are allowed only for an organization`);
    }
    childrenNamed(details, 'Identification').forEach((identification) => {
      const kind = IDENTIFICATION_KINDS.find(([attribute]) => attr(identification, attribute) !== undefined);
      if (!kind) return;
      const country = attr(identification, 'IssuingCountry');
      if (country === undefined || !ISO_3166_ALPHA3.has(country)) {
        errors.push(
          `${at}: invalid country of issue of the ${kind[1]}: ${country === undefined ? 'missing' : JSON.stringify(country)} (expected an ISO 3166 alpha-3 code)`,
        );
      }
    });
  });

  const accounts = childrenNamed(firstChild(application, 'Accounts'), 'Account');
  if (accounts.length === 0) errors.push(`${where}: no Account element`);
  accounts.forEach((account, accountIndex) => {
    const objectives = childrenNamed(descend(account, 'InvestmentObjectives'), 'Objective').filter(
      (objective) => objective.text !== '',
    );
    if (objectives.length === 0)
      errors.push(`${where}: Account ${accountIndex + 1}: investment objectives are mandatory`);
  });
  return errors;
}

/**
 * Structural validation as validateXML performs it: one error text per problem, an empty list when the file is
 * structurally valid. Never throws: malformed XML yields a single error text. Texts name elements and positions,
 * never personal data (a country code in error is quoted; it is not personal).
 */
export function validateApplicationStructure(xml: string): string[] {
  let root: XmlNode;
  try {
    root = parseXmlTree(xml, 'applicationXml');
  } catch (cause) {
    return [cause instanceof Error ? cause.message.replace(/^applicationXml: /, '') : 'the XML is not well-formed'];
  }
  if (root.name !== 'Applications' && root.name !== 'Application') {
    return [`the root element must be Applications, found ${root.name}`];
  }
  const applications = applicationsOf(root);
  if (applications.length === 0) return ['no Application element'];
  return applications.flatMap(validateOne);
}
