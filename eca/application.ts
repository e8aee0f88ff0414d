/**
 * The account application XML (the content of create and validateXML payloads).
 *
 * The spec does not show this format, so this library defines it, modelled on the brokerage's application style:
 * one `Applications` root (in the import-schema namespace) holding one or more `Application` elements, each with a
 * `Customer` (type, user-name prefix, e-mail, external id, input language) and its `AccountHolder`s, and the
 * `Accounts` to open. Example (also at `test/fixtures/eca/application.xml`):
 *
 * ```xml
 * <?xml version="1.0" encoding="UTF-8"?>
 * <Applications xmlns="urn:eca-onboarding:import-schema">
 *   <Application>
 *     <Customer type="INDIVIDUAL" prefix="jdoexa" email="jane.doe@example.com" external_id="EXT-1" input_language="en">
 *       <AccountHolder>
 *         <Details>
 *           <Name first="Jane" last="Doe"/>
 *           <Title code="MS"/>
 *           <Identification DriversLicense="D1234567" IssuingCountry="USA"/>
 *           <SourcesOfWealth>
 *             <SourceOfWealth source_type="SOW-IND-Income"/>
 *           </SourcesOfWealth>
 *         </Details>
 *       </AccountHolder>
 *     </Customer>
 *     <Accounts>
 *       <Account base_currency="USD" margin="Cash">
 *         <InvestmentObjectives>
 *           <Objective>Growth</Objective>
 *         </InvestmentObjectives>
 *       </Account>
 *     </Accounts>
 *   </Application>
 * </Applications>
 * ```
 *
 * Elements and attributes:
 * - `Customer@type`: one of {@link CUSTOMER_TYPES}; `INDIVIDUAL`, `JOINT` and `IRA` are natural persons and need
 *   `Customer@email`. `Customer@prefix`: user-name prefix, lower-case letters as 1st and 6th characters.
 *   `Customer@external_id`: the firm's id of the application (links getResponseFile). `Customer@input_language`:
 *   e.g. `en`, `zh-Hans` (selects the language of the forms shown).
 * - `AccountHolder` (one per person: one for INDIVIDUAL, two for JOINT, the officers of an ORG, whose `Customer`
 *   may also carry `<Organization name="…"/>`) / `Details`: `Name@first`, `Name@last`, `Title@code` (several only
 *   for an ORG), `Identification` with one document attribute (`DriversLicense`, `Passport`, `NationalCard`) and
 *   `IssuingCountry` (ISO 3166 alpha-3), `SourcesOfWealth/SourceOfWealth@source_type` (at least one).
 * - `Accounts/Account@base_currency,margin` with `InvestmentObjectives/Objective` (at least one).
 *
 * The brokerage's structural check of these rules (validateXML) is simulator/formats/application-validation.ts.
 */
import { EcaRequestError } from './errors.js';
import { attr, childrenNamed, firstChild, parseXmlTree } from './xml-tree.js';
import type { XmlNode } from './xml-tree.js';

export const CUSTOMER_TYPES = ['INDIVIDUAL', 'JOINT', 'IRA', 'TRUST', 'ORG'] as const;
export type CustomerType = (typeof CUSTOMER_TYPES)[number];

export interface ApplicationHolder {
  firstName?: string;
  lastName?: string;
  titles: string[];
}

export interface ApplicationAccount {
  baseCurrency?: string;
  margin?: string;
  investmentObjectives: string[];
}

/** What the engine needs to know about an application. Holds personal data: never log it. */
export interface ApplicationSummary {
  externalId?: string;
  /** The `Customer@type` text; check `customerTypeKnown` before relying on it. */
  customerType: CustomerType | (string & {});
  customerTypeKnown: boolean;
  inputLanguage?: string;
  prefix?: string;
  email?: string;
  /** First and last name of the first account holder. */
  firstName?: string;
  lastName?: string;
  holders: ApplicationHolder[];
  accounts: ApplicationAccount[];
}

/** The Application elements of a file: the root itself, or the root's children. */
export function applicationsOf(root: XmlNode): XmlNode[] {
  if (root.name === 'Application') return [root];
  return childrenNamed(root, 'Application');
}

function holdersOf(customer: XmlNode | undefined): XmlNode[] {
  return childrenNamed(customer, 'AccountHolder');
}

/** Adds the optional texts that are present: summaries carry only the fields the XML had. */
function withDefined<T extends object>(target: T, optional: { [K in keyof T]?: string | undefined }): T {
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(target, { [key]: value });
  return target;
}

function summarise(application: XmlNode): ApplicationSummary {
  const customer = firstChild(application, 'Customer');
  const type = attr(customer, 'type') ?? '';
  const holders: ApplicationHolder[] = holdersOf(customer).map((holder) => {
    const details = firstChild(holder, 'Details');
    const name = firstChild(details, 'Name');
    const titles = childrenNamed(details, 'Title')
      .map((title) => attr(title, 'code') ?? title.text)
      .filter((code) => code !== '');
    return withDefined<ApplicationHolder>({ titles }, { firstName: attr(name, 'first'), lastName: attr(name, 'last') });
  });
  const accounts: ApplicationAccount[] = childrenNamed(firstChild(application, 'Accounts'), 'Account').map(
    (account) => {
      const investmentObjectives = childrenNamed(firstChild(account, 'InvestmentObjectives'), 'Objective')
        .map((objective) => objective.text)
        .filter((text) => text !== '');
      return withDefined<ApplicationAccount>(
        { investmentObjectives },
        { baseCurrency: attr(account, 'base_currency'), margin: attr(account, 'margin') },
      );
    },
  );
  const summary: ApplicationSummary = {
    customerType: type,
    customerTypeKnown: (CUSTOMER_TYPES as readonly string[]).includes(type),
    holders,
    accounts,
  };
  return withDefined(summary, {
    externalId: attr(customer, 'external_id'),
    inputLanguage: attr(customer, 'input_language'),
    prefix: attr(customer, 'prefix'),
    email: attr(customer, 'email'),
    firstName: holders[0]?.firstName,
    lastName: holders[0]?.lastName,
  });
}

function parseRoot(xml: string): XmlNode {
  try {
    return parseXmlTree(xml, 'applicationXml');
  } catch (cause) {
    throw new EcaRequestError('applicationXml', cause instanceof Error ? cause.message : 'not well-formed XML', {
      cause,
    });
  }
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

/** A structurally valid example, handy for tests and the simulator. */
export const APPLICATION_XML_EXAMPLE = `<?xml version="1.0" encoding="UTF-8"?>
<Applications xmlns="urn:eca-onboarding:import-schema">
  <Application>
    <Customer type="INDIVIDUAL" prefix="jdoexa" email="jane.doe@example.com" external_id="EXT-1" input_language="en">
      <AccountHolder>
        <Details>
          <Name first="Jane" last="Doe"/>
          <Title code="MS"/>
          <Identification DriversLicense="D1234567" IssuingCountry="USA"/>
          <SourcesOfWealth>
            <SourceOfWealth source_type="SOW-IND-Income"/>
          </SourcesOfWealth>
        </Details>
      </AccountHolder>
    </Customer>
    <Accounts>
      <Account base_currency="USD" margin="Cash">
        <InvestmentObjectives>
          <Objective>Growth</Objective>
        </InvestmentObjectives>
      </Account>
    </Accounts>
  </Application>
</Applications>
`;
