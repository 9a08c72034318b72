/**
 * Errors of the layers below the API (call engine, …) as HTTP answers, in one table the
 * central error handler consults, so routes let them through instead of each catching and
 * translating them. Add a row here when a domain error can reach a route.
 */
import { AccountError } from '../accounts/errors.js';
import { fieldError, HttpError, notFound } from '../api/toolkit/errors.js';
import { CallLimitError } from '../calls/limits.js';
import { AssistantMissingError, ShuttingDownError } from '../calls/types.js';
import { SecretKeyMissingError } from '../lib/secrets.js';

interface DomainErrorRow<E extends Error> {
  type: abstract new (...args: never[]) => E;
  toHttp(err: E): HttpError;
}

const row = <E extends Error>(type: DomainErrorRow<E>['type'], toHttp: (err: E) => HttpError): DomainErrorRow<Error> =>
  ({ type, toHttp }) as DomainErrorRow<Error>;

/** Account rules (src/accounts), as the admin API answers them. */
function accountErrorToHttp(err: AccountError): HttpError {
  switch (err.kind) {
    case 'user-not-found':
      return notFound('User not found.');
    case 'token-not-found':
      return notFound('Token not found.');
    case 'number-not-found':
      return notFound('Phone number not found.');
    case 'number-in-use':
      // The number's state, not the request, stands in the way: a conflict, with the reason.
      return new HttpError(409, err.message);
    case 'email-taken':
      return fieldError('email', err.message);
    case 'invalid-phone':
    case 'phone-taken':
      return fieldError('phone_number', err.message);
    case 'carrier-account-not-found':
      return notFound(err.message);
    case 'carrier-credentials-missing':
      return fieldError('carrier', err.message);
    case 'unknown-provider':
      return fieldError('provider', err.message);
    default:
      return new HttpError(422, err.message);
  }
}

const DOMAIN_ERRORS: readonly DomainErrorRow<Error>[] = [
  row(AccountError, accountErrorToHttp),
  // The account's max_calls_in_parallel is used up (make_call, simulated inbound calls).
  row(CallLimitError, (err) => new HttpError(429, err.message)),
  // The assistant went away between the route's check and the call's insert.
  row(AssistantMissingError, () => new HttpError(404, 'Assistant not found')),
  // The process is shutting down (SIGTERM): another instance, or this one restarted, takes the call.
  row(ShuttingDownError, (err) => new HttpError(503, err.message)),
  // Storing a credential (a user's provider key) needs SECRET_KEY; the message names it.
  row(SecretKeyMissingError, (err) => new HttpError(503, err.message)),
];

/** The HTTP answer of a domain error, or null when `err` is none of them. */
export function domainErrorToHttp(err: unknown): HttpError | null {
  for (const { type, toHttp } of DOMAIN_ERRORS) if (err instanceof type) return toHttp(err);
  return null;
}
