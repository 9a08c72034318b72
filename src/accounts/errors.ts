/**
 * Why an account operation was refused. The admin API maps each kind to its HTTP answer and
 * the CLI prints the message; neither has to know the rules behind it.
 */
export type AccountErrorKind =
  | 'user-not-found'
  | 'email-taken'
  | 'user-disabled'
  | 'invalid-phone'
  | 'phone-taken'
  | 'token-not-found'
  | 'number-not-found'
  | 'number-in-use'
  | 'carrier-account-not-found'
  | 'carrier-credentials-missing'
  | 'unknown-provider'
  | 'admin-token-from-env';

export class AccountError extends Error {
  constructor(
    readonly kind: AccountErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'AccountError';
  }
}
