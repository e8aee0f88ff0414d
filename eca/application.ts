/**
 * The account application XML (the content of create and validateXML payloads), written by the firm in the
 * brokerage's import schema (namespace {@link IMPORT_SCHEMA_NAMESPACE}). The spec does not show this format; firms
 * write it as the brokerage's public integrations do: `Applications/Application` with a `Customer` (its
 * `AccountHolder`s: `AccountHolderDetails` and `FinancialInformation`), `Accounts/Account`, `Users/User` and
 * `Documents/Document`. Example (also at `test/fixtures/eca/application.xml`): {@link APPLICATION_XML_EXAMPLE}.
 *
 * The engine reads only what it needs, and only through {@link ENGINE_READS}: the application's external id (it
 * links the application to getResponseFile and names its workflow), its input language (it selects the Chinese
 * variant of a form) and its customer type (the daily submission of agreements covers only some types: see
 * {@link dailySubmissionCovers}). Elements are matched by local name, so the file may use the import schema's
 * namespace as the default one or under a prefix. Everything else in the file is the firm's business and the brokerage's; the
 * brokerage's check of its content (validateXML) is simulator/formats/application-validation.ts.
 */
import { EcaRequestError } from './errors.js';
import { IMPORT_SCHEMA_NAMESPACE } from './request-xml.js';
import { attr, childrenNamed, firstChild, parseXmlTree } from './xml-tree.js';
import type { XmlNode } from './xml-tree.js';

/** Every element and attribute of the application XML that the engine reads, by local name. */
export const ENGINE_READS = {
  externalId: 'Applications/Application/Customer@external_id',
  inputLanguage: 'Applications/Application/Customer@input_language',
  customerType: 'Applications/Application/Customer@type',
} as const;

/**
 * The customer types of the import schema: an individual, joint holders, a retirement account (IRA), a trust and
 * an organization. A file may carry another value; the engine keeps it as written and treats it as none of these.
 */
export const CUSTOMER_TYPES = ['INDIVIDUAL', 'JOINT', 'IRA', 'TRUST', 'ORG'] as const;
export type CustomerType = (typeof CUSTOMER_TYPES)[number];

/**
 * The customer types whose applications may rely on the day's submitDocuments. The spec's rule 4 of submitDocuments:
 * it "applies to fully disclosed clients (individual, joint, retirement) and advisor clients (individual, joint,
 * retirement)"; every other application (a trust, an organization, a type the engine does not know, or none) carries
 * its agreements and disclosures in its own create archive.
 */
export const DAILY_SUBMISSION_CUSTOMER_TYPES: ReadonlySet<string> = new Set<CustomerType>([
  'INDIVIDUAL',
  'JOINT',
  'IRA',
]);

/** Whether the day's submitDocuments covers an application of this customer type (see the set above). */
export function dailySubmissionCovers(customerType: string | undefined): boolean {
  return customerType !== undefined && DAILY_SUBMISSION_CUSTOMER_TYPES.has(customerType);
}

/** What the engine knows of an application: the fields of {@link ENGINE_READS} that the file has. */
export interface ApplicationSummary {
  /** `Customer@external_id`: the firm's id of the application. */
  externalId?: string;
  /** `Customer@input_language`, e.g. `en` or `zh-Hans`. */
  inputLanguage?: string;
  /** `Customer@type` as written: one of {@link CUSTOMER_TYPES} in a file the brokerage accepts. */
  customerType?: string;
}

/** The Application elements under the `Applications` root (none for any other root). */
export function applicationsOf(root: XmlNode): XmlNode[] {
  return root.name === 'Applications' ? childrenNamed(root, 'Application') : [];
}

function summarise(application: XmlNode): ApplicationSummary {
  const customer = firstChild(application, 'Customer');
  const summary: ApplicationSummary = {};
  const externalId = attr(customer, 'external_id');
  if (externalId !== undefined) summary.externalId = externalId;
  const inputLanguage = attr(customer, 'input_language');
  if (inputLanguage !== undefined) summary.inputLanguage = inputLanguage;
  const customerType = attr(customer, 'type');
  if (customerType !== undefined) summary.customerType = customerType;
  return summary;
}

function parseRoot(xml: string): XmlNode {
  let root: XmlNode;
  try {
    root = parseXmlTree(xml, 'applicationXml');
  } catch (cause) {
    throw new EcaRequestError('applicationXml', cause instanceof Error ? cause.message : 'not well-formed XML', {
      cause,
    });
  }
  if (root.name !== 'Applications') {
    throw new EcaRequestError('applicationXml', `the root element must be Applications, found ${root.name}`);
  }
  return root;
}

/** Summaries of every application in the file. */
export function parseApplications(xml: string): ApplicationSummary[] {
  return applicationsOf(parseRoot(xml)).map(summarise);
}

/** The summary of a file that holds exactly one application (the engine runs one workflow per application). */
export function parseApplication(xml: string): ApplicationSummary {
  const applications = parseApplications(xml);
  const [only] = applications;
  if (only === undefined || applications.length !== 1) {
    throw new EcaRequestError(
      'applicationXml',
      `expected exactly one Application element, found ${applications.length}`,
    );
  }
  return only;
}

/**
 * A complete application of one individual in the import schema, as a firm writes it: valid for the brokerage's
 * validateXML, handy for tests, the demo and the simulator. External ids of the holder, account and user differ
 * from the customer's, so that replacing `external_id="EXT-1"` once renames the application.
 */
export const APPLICATION_XML_EXAMPLE = `<?xml version="1.0" encoding="UTF-8"?>
<Applications xmlns="${IMPORT_SCHEMA_NAMESPACE}">
  <Application>
    <Customer email="jane.doe@example.com" external_id="EXT-1" prefix="jdoexa" type="INDIVIDUAL" input_language="en">
      <AccountHolder>
        <AccountHolderDetails external_id="EXT-1-HOLDER" same_mail_address="true">
          <Name first="Jane" last="Doe"/>
          <Email email="jane.doe@example.com"/>
          <DOB>1985-04-12</DOB>
          <CountryOfBirth>USA</CountryOfBirth>
          <Identification DriversLicense="D1234567" IssuingCountry="USA" citizenship="USA"/>
          <Residence country="USA" state="NY" city="New York" postal_code="10001" street_1="1 Main Street"/>
        </AccountHolderDetails>
        <FinancialInformation net_worth="250000" liquid_net_worth="100000" annual_net_income="90000">
          <SourcesOfWealth>
            <SourceOfWealth source_type="SOW-IND-Income" percentage="100" is_used_for_funds="true"/>
          </SourcesOfWealth>
        </FinancialInformation>
      </AccountHolder>
    </Customer>
    <Accounts>
      <Account external_id="EXT-1-ACCOUNT" base_currency="USD" margin="Cash" multicurrency="false">
        <InvestmentObjectives>
          <objective>Growth</objective>
        </InvestmentObjectives>
        <TradingPermissions>
          <TradingPermission product="STOCKS" country="UNITED STATES"/>
        </TradingPermissions>
      </Account>
    </Accounts>
    <Users>
      <User external_individual_id="EXT-1-HOLDER" external_user_id="EXT-1-USER" prefix="jdoexa"/>
    </Users>
  </Application>
</Applications>
`;
