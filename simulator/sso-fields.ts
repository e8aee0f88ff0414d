/**
 * SSO payload field names and the landing-page lookup. The spec shows neither field names nor a
 * machine-readable catalogue; these mirror what eca/sso.ts defines for the client side.
 */
export const SSO_PAYLOAD_FIELDS = { userName: 'USER_NAME', ip: 'IP' } as const;

/** Landing pages keyed by ACTION, with `config` where one ACTION serves several pages. */
const LANDING: Record<string, string> = {
  ACCOUNT_SETTINGS: 'Account Settings',
  'AccountSettings/Profile': 'Client Profile',
  Statement: 'Statements',
  'AccountSettings/TradingPermissions': 'Trading Permissions',
  TransactionHistory: 'Transaction History',
  TransferFunds: 'Transfer Funds',
  TransferPositions: 'Transfer Positions',
  WireWithdrawals: 'Wire Withdrawal',
  ACHWithdrawals: 'ACH Withdrawal',
  ACHDeposits: 'ACH Deposit',
};

export function landingName(params: URLSearchParams): string | undefined {
  const action = params.get('ACTION');
  if (action === null) return undefined;
  const config = params.get('config');
  if (config !== null)
    return (
      LANDING[`${action}/${config}`] ?? (action === 'AccountSettings' || action === 'UserSettings' ? config : undefined)
    );
  return LANDING[action] ?? (/^[A-Za-z_]+$/.test(action) ? action : undefined);
}
