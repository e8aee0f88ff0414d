/**
 * Single sign-on into the hosted portal: the session request (user name + the end user's one IP), the signed URL in
 * the response (base64, validated before it reaches a browser), and the landing pages appended to it.
 */
import { isIP } from 'node:net';
import { EcaRequestError, EcaSchemaError } from './errors.js';
import { fromBase64 } from './crypto.js';

/**
 * Field names of the JSON inside the sso/create payload. The spec says the JSON carries the account holder's user
 * name and the end user's IP but does not show the names; these are this library's choice, shared with the simulator.
 */
export const SSO_PAYLOAD_FIELDS = { userName: 'USER_NAME', ip: 'IP' } as const;

export type SsoPayload = { [SSO_PAYLOAD_FIELDS.userName]: string; [SSO_PAYLOAD_FIELDS.ip]: string };

/** A signed URL is valid this long after it is issued, and only from the IP sent in the request. */
export const SSO_URL_VALIDITY_MS = 60_000;

export type EcaEnvironment = 'qa' | 'prod';

/**
 * Hosts a signed URL may point at, per environment. Placeholders: a deployment passes the brokerage's portal hosts
 * (client option `sso.allowedHosts`). A leading `*.` allows any subdomain.
 */
export const DEFAULT_SSO_ALLOWED_HOSTS: Readonly<Record<EcaEnvironment, readonly string[]>> = {
  qa: ['portal.qa.eca.example.invalid'],
  prod: ['portal.eca.example.invalid'],
};

/** Checks that `ip` is exactly one IPv4 or IPv6 address (the end user's own); returns it trimmed. */
export function checkSingleIp(ip: unknown, parameter = 'ip'): string {
  if (Array.isArray(ip)) {
    if (ip.length !== 1) throw new EcaRequestError(parameter, `exactly one IP is expected, got ${ip.length}`);
    return checkSingleIp(ip[0], parameter);
  }
  if (typeof ip !== 'string' || ip.trim() === '') throw new EcaRequestError(parameter, 'an IP address is required');
  const text = ip.trim();
  if (/[\s,;]/.test(text)) throw new EcaRequestError(parameter, 'exactly one IP is expected');
  if (isIP(text) === 0) throw new EcaRequestError(parameter, 'not an IPv4 or IPv6 address');
  return text;
}

export function checkUserName(userName: unknown, parameter = 'userName'): string {
  if (typeof userName !== 'string' || userName.trim() === '') {
    throw new EcaRequestError(parameter, 'a user name is required');
  }
  if (/\s/.test(userName.trim())) throw new EcaRequestError(parameter, 'a user name has no spaces');
  return userName.trim();
}

export function buildSsoPayload(input: { userName: string; ip: string | string[] }): SsoPayload {
  return {
    [SSO_PAYLOAD_FIELDS.userName]: checkUserName(input.userName),
    [SSO_PAYLOAD_FIELDS.ip]: checkSingleIp(input.ip),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Signed URL

export interface SignedUrlOptions {
  /** Hosts allowed for the environment; defaults to {@link DEFAULT_SSO_ALLOWED_HOSTS}. */
  allowedHosts?: readonly string[];
  /**
   * Also accept `http` URLs on a loopback host (127.0.0.1, ::1, localhost), whatever `allowedHosts` says: for a
   * local simulator in tests and development only.
   */
  allowInsecureLoopback?: boolean;
  /**
   * When the URL was issued, at the latest; defaults to now. The client passes the time the request was sent, so
   * that expiresAt never lies after the end of the brokerage's 60 seconds.
   */
  issuedAt?: Date;
}

export interface SignedUrl {
  /** The URL exactly as issued. */
  url: string;
  host: string;
  /** The session id (`SID` query parameter, raw text) when the URL carries one. */
  sid?: string;
  issuedAt: Date;
  /** issuedAt + 60 s: after this the brokerage refuses the URL. */
  expiresAt: Date;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', '::1', 'localhost']);

function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.toLowerCase();
  return allowed.some((entry) => {
    const pattern = entry.toLowerCase();
    return pattern.startsWith('*.')
      ? name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1
      : name === pattern;
  });
}

/** Validates a decoded signed URL: https (or loopback http when allowed), an allowed host, no embedded credentials. */
export function validateSignedUrl(
  urlText: string,
  environment: EcaEnvironment,
  options: SignedUrlOptions = {},
  path = 'SUCCESS.SIGNED_URL',
): SignedUrl {
  let url: URL;
  try {
    url = new URL(urlText.trim());
  } catch (cause) {
    throw new EcaSchemaError(path, 'the signed URL is not a URL', { cause });
  }
  if (url.username !== '' || url.password !== '') {
    throw new EcaSchemaError(path, 'the signed URL must not carry credentials');
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname.toLowerCase());
  const insecureLoopbackOk = options.allowInsecureLoopback === true && loopback;
  if (url.protocol !== 'https:' && !(insecureLoopbackOk && url.protocol === 'http:')) {
    throw new EcaSchemaError(path, `the signed URL must use https, got ${url.protocol.replace(':', '')}`);
  }
  const allowed = options.allowedHosts ?? DEFAULT_SSO_ALLOWED_HOSTS[environment];
  if (!insecureLoopbackOk && !hostAllowed(url.hostname, allowed)) {
    throw new EcaSchemaError(path, `host ${url.hostname} is not allowed for the ${environment} environment`);
  }
  const issuedAt = options.issuedAt ?? new Date();
  const signed: SignedUrl = {
    url: urlText.trim(),
    host: url.hostname,
    issuedAt,
    expiresAt: new Date(issuedAt.getTime() + SSO_URL_VALIDITY_MS),
  };
  const sid = /[?&]SID=([^&#]*)/.exec(url.search)?.[1];
  if (sid) signed.sid = sid;
  return signed;
}

/** Decodes `SUCCESS.SIGNED_URL` (base64 of the URL) and validates it. */
export function decodeSignedUrl(
  base64: string,
  environment: EcaEnvironment,
  options: SignedUrlOptions = {},
): SignedUrl {
  const bytes = typeof base64 === 'string' ? fromBase64(base64) : undefined;
  if (!bytes || bytes.length === 0) throw new EcaSchemaError('SUCCESS.SIGNED_URL', 'not base64 text');
  return validateSignedUrl(new TextDecoder().decode(bytes), environment, options);
}

// ---------------------------------------------------------------------------------------------------------------
// Landing pages

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
 * Placeholders: `<sid>`, `<account_id>`, `<master_account_id>`.
 */
export const LANDING_PAGES: readonly LandingPage[] = [
  { id: 'account-settings', name: 'Account Settings', query: 'ACTION=ACCOUNT_SETTINGS&SID=<sid>' },
  { id: 'client-profile', name: 'Client Profile', query: 'ACTION=AccountSettings&config=Profile&SID=<sid>' },
  { id: 'statements', name: 'Statements', query: 'ACTION=Statement&SID=<sid>' },
  {
    id: 'trading-permissions',
    name: 'Trading Permissions',
    query: 'ACTION=AccountSettings&config=TradingPermissions&SID=<sid>',
  },
  { id: 'transaction-history', name: 'Transaction History', query: 'ACTION=TransactionHistory&SID=<sid>' },
  { id: 'transfer-funds', name: 'Transfer Funds', query: 'ACTION=TransferFunds&SID=<sid>' },
  { id: 'transfer-positions', name: 'Transfer Positions', query: 'ACTION=TransferPositions&SID=<sid>' },
  {
    id: 'auto-select-account',
    name: 'Auto select account (linked accounts)',
    query: 'ACTION=autoSelect=<account_id>&noPickerClear=T',
  },
  {
    id: 'auto-select-account-funding',
    name: 'Auto select account (linked accounts), for funding',
    query: 'ACTION=TransferFunds&autoSelect=<account_id>&noPickerClear=T',
  },
  {
    id: 'link-existing-account-to-master',
    name: 'Link existing account to master',
    query: 'forwardTo=AA_LINKAGE&masterAccountId=<master_account_id>',
  },
  { id: 'legacy-wire-withdrawal', name: 'Legacy: Wire Withdrawal', query: 'ACTION=WireWithdrawals&SID=<sid>' },
  {
    id: 'legacy-ach-deposit-ach-withdrawal',
    name: 'Legacy: ACH Deposit / ACH Withdrawal',
    query: 'ACTION=ACHWithdrawals&SID=<sid>',
  },
  { id: 'account-alias', name: 'Account Alias', query: 'ACTION=AccountSettings&config=AccountAlias&SID=<sid>' },
  {
    id: 'account-confirmation-letter',
    name: 'Account Confirmation Letter',
    query: 'ACTION=RM_ACCOUNT_CONFIRMATION_LETTER&SID=<sid>',
  },
  {
    id: 'account-inheritance',
    name: 'Account Inheritance',
    query: 'ACTION=AccountSettings&config=AccountBeneficiary&SID=<sid>',
  },
  { id: 'account-type', name: 'Account Type', query: 'ACTION=ACCOUNT_TYPE&SID=<sid>' },
  {
    id: 'account-type-accountsettings-config-accounttype',
    name: 'Account Type',
    query: 'ACTION=AccountSettings&config=AccountType&SID=<sid>',
  },
  { id: 'ach-deposit', name: 'ACH Deposit', query: 'ACTION=ACHDeposits&SID=<sid>' },
  { id: 'ach-withdrawal', name: 'ACH Withdrawal', query: 'ACTION=ACHWithdrawals&SID=<sid>' },
  { id: 'activity-notifications', name: 'Activity Notifications', query: 'ACTION=AM_NOTIFICATIONS&SID=<sid>' },
  { id: 'add-external-account', name: 'Add External Account', query: 'ACTION=ADD_EXTERNAL_ACCOUNTS&SID=<sid>' },
  { id: 'administrator-search', name: 'Administrator Search', query: 'ACTION=TA_VIEW_ADM_MKT_PLACE&SID=<sid>' },
  { id: 'advertise-services', name: 'Advertise Services', query: 'ACTION=MpApply&SID=<sid>' },
  {
    id: 'advisor-authorizations',
    name: 'Advisor Authorizations',
    query: 'ACTION=AccountSettings&config=AdvisorAuthorizations&SID=<sid>',
  },
  { id: 'advisor-search', name: 'Advisor Search', query: 'ACTION=ADVISORS_MKT_PLACE_SEARCH&SID=<sid>' },
  { id: 'alert-notification', name: 'Alert Notification', query: 'ACTION=ALERT_NOTIFICATION&SID=<sid>' },
  {
    id: 'alert-notification-usersettings-config-alertnotification',
    name: 'Alert Notification',
    query: 'ACTION=UserSettings&config=AlertNotification&SID=<sid>',
  },
  {
    id: 'asic-short-positions-reporting',
    name: 'ASIC Short Positions Reporting',
    query: 'ACTION=AccountSettings&config=AsicShortPosition&SID=<sid>',
  },
  { id: 'audit-trail', name: 'Audit Trail', query: 'ACTION=AccountSettings&config=AuditTrail&SID=<sid>' },
  { id: 'base-currency', name: 'Base Currency', query: 'ACTION=AccountSettings&config=BaseCurrency&SID=<sid>' },
  { id: 'bill-pay', name: 'Bill Pay', query: 'ACTION=BILL_PAY&SID=<sid>' },
  { id: 'cash-management', name: 'Cash Management', query: 'ACTION=CASH_MGMT&SID=<sid>' },
  {
    id: 'cfds-and-metals',
    name: 'CFDs and Metals',
    query: 'ACTION=AccountSettings&config=UklAccountCreation&SID=<sid>',
  },
  { id: 'chat-under-support', name: 'Chat under Support', query: 'ACTION=CS_CHAT&SID=<sid>' },
  { id: 'close-account', name: 'Close Account', query: 'ACTION=CLOSE_ACCOUNT&SID=<sid>' },
  {
    id: 'close-account-accountsettings-config-closeaccount',
    name: 'Close Account',
    query: 'ACTION=AccountSettings&config=CloseAccount&SID=<sid>',
  },
  {
    id: 'commission-pricing-structure',
    name: 'Commission Pricing Structure',
    query: 'ACTION=COMM_PRICE_STRUCTURE&SID=<sid>',
  },
  { id: 'contact-the-brokerage', name: 'Contact the brokerage', query: 'ACTION=CS_CONTACT_IB&SID=<sid>' },
  { id: 'contract-details', name: 'Contract Details', query: 'ACTION=CONTRACT_DETAILS&SID=<sid>' },
  { id: 'contract-search', name: 'Contract Search', query: 'ACTION=CS_CONTRACT_SEARCH&SID=<sid>' },
  { id: 'corp-action', name: 'Corp Action', query: 'ACTION=CS_CORP_ACTION&SID=<sid>' },
  {
    id: 'debit-card-signup-for-clients',
    name: 'Debit Card Signup for Clients',
    query: 'ACTION=AccountSettings&config=ClientDebitcardConfig&SID=<sid>',
  },
  {
    id: 'declared-investor-status',
    name: 'Declared Investor Status',
    query: 'ACTION=AccountSettings&config=SingaporeInvestorCategory&SID=<sid>',
  },
  { id: 'direct-deposit', name: 'Direct Deposit', query: 'ACTION=DIRECT_DEBIT&SID=<sid>' },
  { id: 'direct-deposit-directdeposit', name: 'Direct Deposit', query: 'ACTION=DirectDeposit&SID=<sid>' },
  {
    id: 'dividend-election',
    name: 'Dividend Election',
    query: 'ACTION=AccountSettings&config=DividendReinvestment&SID=<sid>',
  },
  { id: 'email-address', name: 'Email Address', query: 'ACTION=CHANGE_EMAIL&SID=<sid>' },
  {
    id: 'email-address-usersettings-config-emailaddress',
    name: 'Email Address',
    query: 'ACTION=UserSettings&config=EmailAddress&SID=<sid>',
  },
  { id: 'emir-lei-information', name: 'EMIR & LEI Information', query: 'ACTION=AccountSettings&config=Emir&SID=<sid>' },
  {
    id: 'excess-funds-sweep',
    name: 'Excess Funds Sweep',
    query: 'ACTION=AccountSettings&config=ExcessFundsSweep&SID=<sid>',
  },
  { id: 'exposure-fee', name: 'Exposure Fee', query: 'ACTION=RM_EXPOSURE_FEE&SID=<sid>' },
  { id: 'financial-info', name: 'Financial Info', query: 'ACTION=FINANCIAL_INFO&SID=<sid>' },
  {
    id: 'financial-profile',
    name: 'Financial Profile',
    query: 'ACTION=AccountSettings&config=FinancialInfo&SID=<sid>',
  },
  { id: 'financial-transactions', name: 'Financial Transactions', query: 'ACTION=FINANCIAL_TRANS_HISTORY&SID=<sid>' },
  { id: 'find-services', name: 'Find Services', query: 'ACTION=MpSearch&SID=<sid>' },
  { id: 'flex-queries', name: 'Flex Queries', query: 'ACTION=RM_FLEX_QUERIES&SID=<sid>' },
  { id: 'flex-queries-delivery', name: 'Flex Queries Delivery', query: 'ACTION=FLEX_QUERIES_DELIVERY&SID=<sid>' },
  {
    id: 'flex-queries-delivery-usersettings-config-flexqueriesdelivery',
    name: 'Flex Queries Delivery',
    query: 'ACTION=UserSettings&config=FlexQueriesDelivery&SID=<sid>',
  },
  { id: 'flex-web-service', name: 'Flex Web Service', query: 'ACTION=AccountSettings&config=FlexWebService&SID=<sid>' },
  { id: 'fund-transfers', name: 'Fund Transfers', query: 'ACTION=FUND_TRANSFERS&SID=<sid>' },
  {
    id: 'fyi-notifications',
    name: 'FYI Notifications',
    query: 'ACTION=AccountSettings&config=IbfyiNotification&SID=<sid>',
  },
  { id: 'goal-tracker', name: 'Goal Tracker', query: 'ACTION=GoalTracker&SID=<sid>' },
  { id: 'groups-households', name: 'Groups & Households', query: 'ACTION=Groups&SID=<sid>' },
  { id: 'hfcip-search', name: 'HFCIP Search', query: 'ACTION=TA_HFCI_VIEW&SID=<sid>' },
  { id: 'fyi-brokerage-notes', name: 'FYI (brokerage notes)', query: 'ACTION=TA_FYI&SID=<sid>' },
  { id: 'notes', name: 'Notes', query: 'ACTION=AccountSettings&config=IbNotes&SID=<sid>' },
  { id: 'slb-tools', name: 'SLB Tools', query: 'ACTION=CS_SLB&SID=<sid>' },
  { id: 'pricing-plan', name: 'Pricing Plan', query: 'ACTION=IBKR_LITE&SID=<sid>' },
  {
    id: 'pricing-plan-accountsettings-config-ibkrlite',
    name: 'Pricing Plan',
    query: 'ACTION=AccountSettings&config=ibkrLite&SID=<sid>',
  },
  {
    id: 'institutional-services',
    name: 'Institutional Services',
    query: 'ACTION=AccountSettings&config=InstitutionalService&SID=<sid>',
  },
  {
    id: 'insured-bank-deposit-sweep-program',
    name: 'Insured Bank Deposit Sweep Program',
    query: 'ACTION=AccountSettings&config=PROMONTORY_CONFIG&SID=<sid>',
  },
  {
    id: 'investor-category',
    name: 'Investor Category',
    query: 'ACTION=AccountSettings&config=InvestorCategory&SID=<sid>',
  },
  { id: 'ip-restrictions', name: 'IP Restrictions', query: 'ACTION=UserSettings&config=IpRestriction&SID=<sid>' },
  {
    id: 'ipo-subscription-permission',
    name: 'IPO Subscription Permission',
    query: 'ACTION=AccountSettings&config=IpoSubscriptionConfig&SID=<sid>',
  },
  { id: 'ira-activity', name: 'IRA Activity', query: 'ACTION=AccountSettings&config=IraActivity&SID=<sid>' },
  { id: 'ira-conversion', name: 'IRA Conversion', query: 'ACTION=AccountSettings&config=IraConversion&SID=<sid>' },
  {
    id: 'ira-recharacterization',
    name: 'IRA Recharacterization',
    query: 'ACTION=AccountSettings&config=IraRecharacterization&SID=<sid>',
  },
  { id: 'large-trader-id', name: 'Large Trader ID', query: 'ACTION=AccountSettings&config=LargeTraderId&SID=<sid>' },
  {
    id: 'link-account-to-advisor-broker-administrator',
    name: 'Link Account to Advisor/Broker/Administrator',
    query: 'ACTION=LINK_ACCOUNT&SID=<sid>',
  },
  {
    id: 'link-account-to-advisor-broker-administrator-accountsettings-config-linkage',
    name: 'Link Account to Advisor/Broker/Administrator',
    query: 'ACTION=AccountSettings&config=Linkage&SID=<sid>',
  },
  {
    id: 'manage-administrators',
    name: 'Manage Administrators',
    query: 'ACTION=AccountSettings&config=AdminManagement&SID=<sid>',
  },
  { id: 'market-data-assistant', name: 'Market Data Assistant', query: 'ACTION=CS_MARKET_DATA_ASSISTANT&SID=<sid>' },
  {
    id: 'market-data-restriction',
    name: 'Market Data Restriction',
    query: 'ACTION=UserSettings&config=MarketDataRestriction&SID=<sid>',
  },
  {
    id: 'market-data-subscriptions',
    name: 'Market Data Subscriptions',
    query: 'ACTION=UserSettings&config=MarketData&SID=<sid>',
  },
  {
    id: 'market-overview',
    name: 'Market Overview',
    query: 'ACTION=ACCT_MGMT_MAIN&loginType=1&clt=0&RL=1#/markets&SID=<sid>',
  },
  { id: 'marketing-preference', name: 'Marketing Preference', query: 'ACTION=MKT_PREFERENCE&SID=<sid>' },
  {
    id: 'marketing-preferences',
    name: 'Marketing Preferences',
    query: 'ACTION=UserSettings&config=MarketingPreference&SID=<sid>',
  },
  { id: 'message-center', name: 'Message Center', query: 'ACTION=CS_WEB_TICKET&SID=<sid>' },
  {
    id: 'message-center-notification-settings',
    name: 'Message Center Notification Settings',
    query: 'ACTION=UserSettings&config=MessageCenterNotification&SID=<sid>',
  },
  {
    id: 'message-center-notifications',
    name: 'Message Center Notifications',
    query: 'ACTION=CS_MESSAGE_CENTER_NOTIFICATIONS&SID=<sid>',
  },
  { id: 'client-category-mifid', name: 'Client Category (MiFID)', query: 'ACTION=MIFID_CLIENT_CATEGORY&SID=<sid>' },
  {
    id: 'client-category-mifid-accountsettings-config-mifidclientcategory',
    name: 'Client Category (MiFID)',
    query: 'ACTION=AccountSettings&config=MifidClientCategory&SID=<sid>',
  },
  { id: 'mifir', name: 'Mifir', query: 'ACTION=AccountSettings&config=Mifir&SID=<sid>' },
  { id: 'mobile-number', name: 'Mobile Number', query: 'ACTION=UserSettings&config=MobileNumber&SID=<sid>' },
  {
    id: 'mobile-number-configuration',
    name: 'Mobile Number Configuration',
    query: 'ACTION=MOBILE_VERIFICATION&SID=<sid>',
  },
  { id: 'money-manager-search', name: 'Money Manager Search', query: 'ACTION=TA_VIEW_MM_MKT_PLACE&SID=<sid>' },
  {
    id: 'new-features-poll-provide-feedback',
    name: 'New Features Poll / Provide Feedback',
    query: 'ACTION=FEEDBACK&SID=<sid>',
  },
  { id: 'new-ticket-creation', name: 'New ticket creation', query: 'ACTION=NEW_TICKET&SID=<sid>' },
  {
    id: 'non-us-dividend-tax-relief',
    name: 'Non-US Dividend Tax Relief',
    query: 'ACTION=AccountSettings&config=DividendTaxRelief&SID=<sid>',
  },
  { id: 'online-features', name: 'Online Features', query: 'ACTION=UserSettings&config=VoterSubscription&SID=<sid>' },
  {
    id: 'online-features-voter-registration',
    name: 'Online Features (voter registration)',
    query: 'ACTION=UM_VOTER_REGISTRATION&SID=<sid>',
  },
  {
    id: 'open-an-additional-account',
    name: 'Open an Additional Account',
    query: 'ACTION=AccountSettings&config=AdditionalAccount&SID=<sid>',
  },
  {
    id: 'order-ticket',
    name: 'Order Ticket',
    query: 'ACTION=ACCT_MGMT_MAIN&loginType=1&clt=0&RL=1#/order-ticket/stock&SID=<sid>',
    note: 'needs a minimum width of 1200 px (a smaller width gives only a side-car order ticket that does not open on a new page); desktop browsers only',
  },
  { id: 'other-reports', name: 'Other Reports', query: 'ACTION=RM_MARGIN_REPORTS&SID=<sid>' },
  {
    id: 'paper-trading-account',
    name: 'Paper Trading Account',
    query: 'ACTION=AccountSettings&config=PaperTrading&SID=<sid>',
  },
  {
    id: 'paper-trading-account-reset',
    name: 'Paper Trading Account Reset',
    query: 'ACTION=AccountSettings&config=PaperTradingReset&SID=<sid>',
  },
  {
    id: 'paper-trading-configuration',
    name: 'Paper Trading Configuration',
    query: 'ACTION=TA_PAPER_TRADING&SID=<sid>',
  },
  { id: 'password', name: 'Password', query: 'ACTION=UserSettings&config=Password&SID=<sid>' },
  { id: 'password-change', name: 'Password Change', query: 'ACTION=PASSWORDCHG&SID=<sid>' },
  { id: 'pdt-reset-under-support', name: 'PDT Reset under Support', query: 'ACTION=PDTRESET_STATUSCHECKED&SID=<sid>' },
  { id: 'pending-items', name: 'Pending Items', query: 'ACTION=DOC&SID=<sid>' },
  { id: 'portfolio', name: 'Portfolio', query: 'ACTION=ACCT_MGMT_MAIN&loginType=1&clt=0&RL=1#/portfolio&SID=<sid>' },
  { id: 'portfolio-analyst', name: 'Portfolio Analyst', query: 'ACTION=PA_DELIVERY&SID=<sid>' },
  { id: 'portfolio-analyst-portfolioanalyst', name: 'Portfolio Analyst', query: 'ACTION=PORTFOLIOANALYST&SID=<sid>' },
  { id: 'portfolioanalyst', name: 'PortfolioAnalyst', query: 'ACTION=RM_PORTFOLIO_ANALYST&SID=<sid>' },
  {
    id: 'portfolioanalyst-delivery',
    name: 'PortfolioAnalyst Delivery',
    query: 'ACTION=UserSettings&config=PaDelivery&SID=<sid>',
  },
  { id: 'priips', name: 'PRIIPS', query: 'ACTION=CS_PRIIPS&SID=<sid>' },
  {
    id: 'professional-advisor-qualification',
    name: 'Professional Advisor Qualification',
    query: 'ACTION=AccountSettings&config=ProAdvisorQualification&SID=<sid>',
  },
  { id: 'profile', name: 'Profile', query: 'ACTION=AccountSettings&config=Profile&SID=<sid>' },
  { id: 'promontory', name: 'Promontory', query: 'ACTION=promontory&SID=<sid>' },
  { id: 'questionnaire', name: 'Questionnaire', query: 'ACTION=QUESTIONNAIRE&SID=<sid>' },
  { id: 'read-only-access', name: 'Read-Only Access', query: 'ACTION=UserSettings&config=TradingReadOnly&SID=<sid>' },
  { id: 'read-only-setting', name: 'Read-only Setting', query: 'ACTION=TA_MOBILE_READONLY&SID=<sid>' },
  { id: 'refer-a-friend', name: 'Refer a Friend', query: 'ACTION=AccountSettings&config=FriendReferral&SID=<sid>' },
  {
    id: 'registration-information',
    name: 'Registration Information',
    query: 'ACTION=AccountSettings&config=JurisdictionInfo&SID=<sid>',
  },
  {
    id: 'regulatory-information',
    name: 'Regulatory Information',
    query: 'ACTION=AccountSettings&config=RegulatoryInformation&SID=<sid>',
  },
  {
    id: 'required-minimum-distribution-calculator',
    name: 'Required Minimum Distribution Calculator',
    query: 'ACTION=Rmd&SID=<sid>',
  },
  { id: 'research-subscriptions', name: 'Research Subscriptions', query: 'ACTION=TA_DATA_SERVICES&SID=<sid>' },
  {
    id: 'research-subscriptions-usersettings-config-researchsubscription',
    name: 'Research Subscriptions',
    query: 'ACTION=UserSettings&config=ResearchSubscription&SID=<sid>',
  },
  {
    id: 'risk-appetite-questionnaire',
    name: 'Risk Appetite Questionnaire',
    query: 'ACTION=AccountSettings&config=BondRiskAppetite&SID=<sid>',
  },
  { id: 'risk-scores', name: 'Risk Scores', query: 'ACTION=RiskScores&SID=<sid>' },
  {
    id: 'risk-scores-accountsettings-config-advisorquestionnaireedito',
    name: 'Risk Scores',
    query: 'ACTION=AccountSettings&config=AdvisorQuestionnaireEdito&SID=<sid>',
  },
  {
    id: 'saved-funding-information',
    name: 'Saved Funding Information',
    query: 'ACTION=FUNDING_INSTRUCTIONS&SID=<sid>',
  },
  { id: 'saved-information', name: 'Saved Information', query: 'ACTION=FundingInstructions&SID=<sid>' },
  { id: 'section-13', name: 'Section 13', query: 'ACTION=AccountSettings&config=Acors&SID=<sid>' },
  { id: 'secure-login-settings', name: 'Secure Login Settings', query: 'ACTION=SECURE_LOGIN&SID=<sid>' },
  { id: 'secure-login-system', name: 'Secure Login System', query: 'ACTION=UserSettings&config=SecureLogin&SID=<sid>' },
  {
    id: 'securities-class-action-recovery',
    name: 'Securities Class Action Recovery',
    query: 'ACTION=AccountSettings&config=litigationRecovery&SID=<sid>',
  },
  {
    id: 'security-questions',
    name: 'Security Questions',
    query: 'ACTION=UserSettings&config=SecurityQuestions&SID=<sid>',
  },
  { id: 'settings', name: 'Settings', query: 'ACTION=ACCOUNT_SETTINGS&SID=<sid>' },
  { id: 'sftr', name: 'SFTR', query: 'ACTION=AccountSettings&config=Sftr&SID=<sid>' },
  { id: 'sms-address', name: 'SMS Address', query: 'ACTION=UserSettings&config=SmsAddress&SID=<sid>' },
  { id: 'sms-alerts', name: 'SMS Alerts', query: 'ACTION=SMS_ALERTS&SID=<sid>' },
  {
    id: 'sms-alerts-usersettings-config-smsalerts',
    name: 'SMS Alerts',
    query: 'ACTION=UserSettings&config=SmsAlerts&SID=<sid>',
  },
  {
    id: 'soft-dollar-configuration',
    name: 'Soft Dollar Configuration',
    query: 'ACTION=AccountSettings&config=SoftDollar&SID=<sid>',
  },
  {
    id: 'soft-dollars-disbursement',
    name: 'Soft Dollars Disbursement',
    query: 'ACTION=AccountSettings&config=SoftDollarDisbursement&SID=<sid>',
  },
  { id: 'statements-2', name: 'Statements', query: 'ACTION=Statement&SID=<sid>' },
  {
    id: 'statements-delivery',
    name: 'Statements Delivery',
    query: 'ACTION=UserSettings&config=StatementsDelivery&SID=<sid>',
  },
  {
    id: 'stock-yield-enhancement-program',
    name: 'Stock Yield Enhancement Program',
    query: 'ACTION=AccountSettings&config=SYEP&SID=<sid>',
  },
  { id: 'support', name: 'Support', query: 'ACTION=Support&SID=<sid>' },
  { id: 'tax-reports', name: 'Tax Reports', query: 'ACTION=RM_FIFO_COST_BASIS&SID=<sid>' },
  { id: 'tax-reports-rm-tax-forms', name: 'Tax Reports', query: 'ACTION=RM_TAX_FORMS&SID=<sid>' },
  {
    id: 'third-party-services',
    name: 'Third-Party Services',
    query: 'ACTION=AccountSettings&config=ThirdPartyServices&SID=<sid>',
  },
  { id: 'tools-page-under-support', name: 'Tools page under support', query: 'ACTION=IB_TOOLS&SID=<sid>' },
  { id: 'trade-cancellation-request', name: 'Trade Cancellation Request', query: 'ACTION=CS_TRADE_CANCEL&SID=<sid>' },
  {
    id: 'trade-execution-notification',
    name: 'Trade Execution Notification',
    query: 'ACTION=UserSettings&config=ActivityNotification&SID=<sid>',
  },
  { id: 'trade-in-fractions', name: 'Trade In Fractions', query: 'ACTION=TRADE_IN_FRACTIONS&SID=<sid>' },
  {
    id: 'trade-in-fractions-accountsettings-config-tradeinfractions',
    name: 'Trade in Fractions',
    query: 'ACTION=AccountSettings&config=tradeInFrACTIONs&SID=<sid>',
  },
  { id: 'trader-referral', name: 'Trader Referral', query: 'ACTION=AccountSettings&config=TraderReferral&SID=<sid>' },
  {
    id: 'trading-permissions-2',
    name: 'Trading Permissions',
    query: 'ACTION=AccountSettings&config=TradingPermissions&SID=<sid>',
  },
  {
    id: 'trading-restrictions',
    name: 'Trading Restrictions',
    query: 'ACTION=AccountSettings&config=TradingRestrictions&SID=<sid>',
  },
  { id: 'transaction-history-alt-case', name: 'Transaction History', query: 'ACTION=TransACTIONHistory&SID=<sid>' },
  { id: 'transfer-positions-position-mgmt', name: 'Transfer Positions', query: 'ACTION=POSITION_MGMT&SID=<sid>' },
  { id: 'transfer-positions-2', name: 'Transfer Positions', query: 'ACTION=TransferPositions&SID=<sid>' },
  {
    id: 'trusted-contact-person',
    name: 'Trusted Contact Person',
    query: 'ACTION=AccountSettings&config=TrustedContact&SID=<sid>',
  },
  { id: 'vat', name: 'VAT', query: 'ACTION=AccountSettings&config=SalesTax&SID=<sid>' },
  {
    id: 'virtual-fx-tracking',
    name: 'Virtual FX Tracking',
    query: 'ACTION=AccountSettings&config=VirtualFxPortfolioTracking&SID=<sid>',
  },
  { id: 'white-branding', name: 'White Branding', query: 'ACTION=AccountSettings&config=WhiteBranding&SID=<sid>' },
  {
    id: 'why-is-it-moving',
    name: 'Why is it moving',
    query: 'ACTION=ACCT_MGMT_MAIN&loginType=1&clt=0&RL=1#/markets&SID=<sid>',
  },
  { id: 'wire-withdrawal', name: 'Wire Withdrawal', query: 'ACTION=WireWithdrawals&SID=<sid>' },
];

export const LANDING_PAGES_BY_ID: ReadonlyMap<string, LandingPage> = new Map(
  LANDING_PAGES.map((page) => [page.id, page]),
);

export function findLandingPage(id: string): LandingPage | undefined {
  return LANDING_PAGES_BY_ID.get(id);
}

export const TRANSFER_FUNDS_TYPES = ['DEPOSIT', 'WITHDRAWAL'] as const;
export const TRANSFER_FUNDS_METHODS = ['ACH', 'WIRE', 'EDDA', 'EFT'] as const;
/** Currencies the spec names; others of three upper-case letters are accepted too (the full list is not shown). */
export const TRANSFER_FUNDS_CURRENCIES = ['USD', 'CAD', 'HKD', 'CNH', 'EUR', 'GBP', 'AUD'] as const;

export interface TransferFundsParams {
  type: (typeof TRANSFER_FUNDS_TYPES)[number];
  method: (typeof TRANSFER_FUNDS_METHODS)[number];
  currency: string;
}

export const TRANSFER_FUNDS_LANDING_ID = 'transfer-funds';

function checkTransferFunds(params: TransferFundsParams): TransferFundsParams {
  if (!(TRANSFER_FUNDS_TYPES as readonly string[]).includes(params.type)) {
    throw new EcaRequestError('transferFunds.type', `expected one of ${TRANSFER_FUNDS_TYPES.join(', ')}`);
  }
  if (!(TRANSFER_FUNDS_METHODS as readonly string[]).includes(params.method)) {
    throw new EcaRequestError('transferFunds.method', `expected one of ${TRANSFER_FUNDS_METHODS.join(', ')}`);
  }
  if (typeof params.currency !== 'string' || !/^[A-Z]{3}$/.test(params.currency)) {
    throw new EcaRequestError('transferFunds.currency', 'expected three upper-case letters, e.g. USD');
  }
  return params;
}

const PLACEHOLDER_VALUE = /^[A-Za-z0-9._~%-]+$/;

export interface LandingValues {
  /** Overrides the SID read from the signed URL. */
  sid?: string;
  accountId?: string;
  masterAccountId?: string;
}

/**
 * The URL that opens `landing` in the session: the signed URL plus the landing parameters, appended verbatim with
 * `?` or `&`. With `transferFunds` (only for the Transfer Funds page), method, type and currency are added in the
 * spec's order; without, the page shows all saved instructions.
 */
export function buildLandingUrl(
  signedUrl: string | SignedUrl,
  landing: LandingPage | string,
  transferFunds?: TransferFundsParams,
  values: LandingValues = {},
): string {
  const page = typeof landing === 'string' ? findLandingPage(landing) : landing;
  if (!page) throw new EcaRequestError('landing', 'unknown landing page id');
  const base = typeof signedUrl === 'string' ? signedUrl : signedUrl.url;
  const sid = values.sid ?? (typeof signedUrl === 'string' ? /[?&]SID=([^&#]*)/.exec(base)?.[1] : signedUrl.sid);
  let query = page.query;
  if (transferFunds !== undefined) {
    if (page.id !== TRANSFER_FUNDS_LANDING_ID) {
      throw new EcaRequestError('transferFunds', 'transfer parameters apply only to the Transfer Funds page');
    }
    const { method, type, currency } = checkTransferFunds(transferFunds);
    query = `ACTION=TransferFunds&method=${method}&type=${type}&currency=${currency}&SID=<sid>`;
  }
  const substitutions: Array<[placeholder: string, value: string | undefined, parameter: string]> = [
    ['<sid>', sid, 'sid'],
    ['<account_id>', values.accountId, 'accountId'],
    ['<master_account_id>', values.masterAccountId, 'masterAccountId'],
  ];
  for (const [placeholder, value, parameter] of substitutions) {
    if (!query.includes(placeholder)) continue;
    if (value === undefined || !PLACEHOLDER_VALUE.test(value)) {
      throw new EcaRequestError(parameter, `a value without spaces or separators is required for ${placeholder}`);
    }
    query = query.split(placeholder).join(value);
  }
  const separator = base.endsWith('?') || base.endsWith('&') ? '' : base.includes('?') ? '&' : '?';
  return `${base}${separator}${query}`;
}
