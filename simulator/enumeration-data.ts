/** Plausible CSV content for every enumeration type of getEnumerations. The spec does not show the columns. */

export const ENUMERATION_TABLES: Record<string, string[][]> = {
  ACATS: [
    ['broker_id', 'broker_name'],
    ['0015', 'Morgan Stanley Smith Barney LLC'],
    ['0164', 'Charles Schwab & Co. Inc.'],
    ['0188', 'TD Ameritrade Clearing Inc.'],
    ['0226', 'National Financial Services LLC'],
    ['0443', 'Pershing LLC'],
  ],
  ATON: [
    ['broker_id', 'broker_name'],
    ['T001', 'RBC Dominion Securities Inc.'],
    ['T002', 'TD Waterhouse Canada Inc.'],
    ['T003', 'BMO Nesbitt Burns Inc.'],
    ['T004', 'Scotia Capital Inc.'],
  ],
  BUSINESS_AND_OCCUPATION: [
    ['occupation', 'employer_business'],
    ['Accountant', 'Accounting'],
    ['Engineer', 'Engineering'],
    ['Physician', 'Health Care'],
    ['Software Developer', 'Information Technology'],
    ['Teacher', 'Education'],
    ['Attorney', 'Legal Services'],
  ],
  EDD_AVT: [
    ['form_number', 'question_id', 'question', 'answer_type'],
    ['4100', 'EDD-1', 'What is the source of the funds deposited?', 'TEXT'],
    ['4100', 'EDD-2', 'What is your expected annual deposit amount?', 'RANGE'],
    ['4100', 'EDD-3', 'Do you hold accounts with other brokers?', 'YES_NO'],
  ],
  EMPLOYEE_PLANS: [
    ['plan_id', 'plan_name', 'master_account'],
    ['EP-001', 'Employee Stock Plan', 'F1000001'],
    ['EP-002', 'Retirement Savings Plan', 'F1000001'],
  ],
  EMPLOYEE_TRACK: [
    ['company_id', 'company_name'],
    ['ET-1001', 'Example Capital Partners'],
    ['ET-1002', 'Sample Asset Management'],
  ],
  EXCHANGE_BUNDLES: [
    ['exchange_group', 'description', 'asset_class'],
    ['US-Sec', 'United States stocks', 'STK'],
    ['US-Options', 'United States options', 'OPT'],
    ['US-Futures', 'United States futures', 'FUT'],
    ['EU-Sec', 'European stocks', 'STK'],
    ['FX', 'Forex', 'CASH'],
  ],
  FIN_INFO_RANGES: [
    ['currency', 'type', 'id', 'lower_bound', 'upper_bound'],
    ['USD', 'annual_net_income', '1', '0', '25000'],
    ['USD', 'annual_net_income', '2', '25001', '50000'],
    ['USD', 'annual_net_income', '3', '50001', '100000'],
    ['USD', 'net_worth', '1', '0', '50000'],
    ['USD', 'net_worth', '2', '50001', '250000'],
    ['USD', 'net_worth', '3', '250001', '1000000'],
    ['USD', 'liquid_net_worth', '1', '0', '50000'],
    ['USD', 'liquid_net_worth', '2', '50001', '250000'],
  ],
  MARKET_DATA: [
    ['subscription_id', 'name', 'monthly_fee_usd'],
    ['MD-US-NP', 'US Securities Snapshot and Futures Value Bundle', '10.00'],
    ['MD-US-OPRA', 'OPRA (US Options Exchanges)', '1.50'],
    ['MD-EU-STK', 'Euronext Data Bundle', '4.50'],
  ],
  PROHIBITED_COUNTRY: [
    ['country_code', 'country_name'],
    ['PRK', "Korea, Democratic People's Republic of"],
    ['IRN', 'Iran, Islamic Republic of'],
    ['SYR', 'Syrian Arab Republic'],
    ['CUB', 'Cuba'],
  ],
  QUIZ_QUESTIONS: [
    ['form_number', 'question_id', 'question', 'answers'],
    ['4200', 'Q-1', 'What happens to a call option buyer if the stock falls?', 'A|B|C|D'],
    ['4200', 'Q-2', 'What is a margin call?', 'A|B|C|D'],
  ],
  SECURITY_QUESTIONS: [
    ['question_id', 'question'],
    ['1', 'What was the name of your first pet?'],
    ['2', 'In what city were you born?'],
    ['3', 'What was the make of your first car?'],
  ],
};

/** The spec lists BUSINESS_AND_OCCUPATION also as BUSINESS_OCCUPATION. */
export const ENUMERATION_ALIASES: Record<string, string> = { BUSINESS_OCCUPATION: 'BUSINESS_AND_OCCUPATION' };
