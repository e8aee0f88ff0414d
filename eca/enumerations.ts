/**
 * getEnumerations: the list types, their request rules, and the CSV of enumeration values (its column layout is not
 * in the spec, so rows are returned keyed by whatever header the file has).
 */
import { parse } from 'csv-parse/sync';
import { EcaSchemaError } from './errors.js';

export const ENUMERATION_TYPES = [
  'ACATS',
  'ATON',
  'BUSINESS_AND_OCCUPATION',
  'BUSINESS_OCCUPATION',
  'EDD_AVT',
  'EMPLOYEE_PLANS',
  'EMPLOYEE_TRACK',
  'EXCHANGE_BUNDLES',
  'FIN_INFO_RANGES',
  'MARKET_DATA',
  'PROHIBITED_COUNTRY',
  'QUIZ_QUESTIONS',
  'SECURITY_QUESTIONS',
] as const;
export type EnumerationType = (typeof ENUMERATION_TYPES)[number];

/** The spec lists BUSINESS_AND_OCCUPATION "also as" BUSINESS_OCCUPATION: both are sent as given, and mean the same list. */
export const ENUMERATION_TYPE_ALIASES: Readonly<Partial<Record<EnumerationType, EnumerationType>>> = {
  BUSINESS_OCCUPATION: 'BUSINESS_AND_OCCUPATION',
};

export function canonicalEnumerationType(type: EnumerationType): EnumerationType {
  return ENUMERATION_TYPE_ALIASES[type] ?? type;
}

export function isEnumerationType(value: unknown): value is EnumerationType {
  return typeof value === 'string' && (ENUMERATION_TYPES as readonly string[]).includes(value);
}

export const ENUMERATION_TYPE_CONTENT: Readonly<Record<EnumerationType, string>> = {
  ACATS: 'broker_id and broker_name values for a US external position transfer',
  ATON: 'broker_id and broker_name values for a Canadian external position transfer',
  BUSINESS_AND_OCCUPATION: 'occupation and employer_business values for employment details',
  BUSINESS_OCCUPATION: 'occupation and employer_business values for employment details',
  EDD_AVT: 'enhanced due diligence / additional verification questions assigned to an account',
  EMPLOYEE_PLANS: 'employee plans associated with the master account',
  EMPLOYEE_TRACK: 'company_id values for affiliation details (employee-track accounts)',
  EXCHANGE_BUNDLES: 'exchange_group values of trading permissions',
  FIN_INFO_RANGES: 'range ids per currency for annual_net_income, net_worth, liquid_net_worth',
  MARKET_DATA: 'market data subscriptions',
  PROHIBITED_COUNTRY: 'not shown in the spec',
  QUIZ_QUESTIONS: 'not shown in the spec',
  SECURITY_QUESTIONS: 'not shown in the spec',
};

/** Parses the enumeration CSV: the first line is the header, every further line a row keyed by header names. */
export function parseEnumerationsCsv(csv: string): Array<Record<string, string>> {
  if (typeof csv !== 'string' || csv.trim() === '') return [];
  try {
    return parse<Record<string, string>>(csv, {
      columns: (header: string[]) => header.map((name) => name.trim()),
      bom: true,
      skip_empty_lines: true,
      trim: true,
      relax_quotes: false,
    });
  } catch (cause) {
    throw new EcaSchemaError(
      'csv',
      `the enumeration CSV cannot be read: ${cause instanceof Error ? cause.message.split('\n')[0] : 'parse error'}`,
      { cause },
    );
  }
}
