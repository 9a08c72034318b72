/**
 * Before an account's Twilio credentials are stored, Twilio is asked whether it accepts them:
 * `GET /2010-04-01/Accounts/{AccountSid}.json` with HTTP Basic auth (the API key when given,
 * else the account SID and auth token), at TWILIO_API_URL. Credentials Twilio refuses are
 * never saved; neither are they when Twilio cannot be asked (the admin tries again later).
 */
import { fieldError, HttpError, ValidationError } from '../toolkit/errors.js';
import { TwilioApiError, TwilioRestClient, type TwilioCredentials } from '../../telephony/twilio/rest-client.js';

/** How long Twilio gets to answer before the save is refused as "could not be reached". */
const CHECK_TIMEOUT_MS = 8_000;

/** Resolves when Twilio accepts `credentials` for an active account; throws the HTTP answer otherwise. */
export async function verifyTwilioCredentials(apiUrl: string, credentials: TwilioCredentials, timeoutMs = CHECK_TIMEOUT_MS): Promise<void> {
  const withKey = Boolean(credentials.apiKeySid && credentials.apiKeySecret);
  let account: { sid: string; status?: string };
  try {
    account = await new TwilioRestClient({ apiUrl, credentials, timeoutMs }).fetchAccount();
  } catch (err) {
    if (err instanceof TwilioApiError) {
      if (err.status === 401 || err.status === 403 || err.status === 404) {
        const message = `Twilio refused these credentials (${err.status}).`;
        // 404: Twilio knows no such account; otherwise the secret that signed the request is wrong.
        const field = err.status === 404 ? 'account_sid' : withKey ? 'api_key_secret' : 'auth_token';
        const hint = err.status === 404
          ? 'Twilio knows no account with this SID for these credentials. Check the account SID.'
          : withKey
            ? 'Twilio refused this API key and secret for the account. Check the key SID and its secret.'
            : 'Twilio refused this account SID and auth token. Check the auth token (Twilio Console, Account info).';
        throw new ValidationError({ [field]: [hint] }, message);
      }
      throw new HttpError(502, `Twilio answered ${err.status} when the credentials were checked; nothing was saved. Try again in a moment.`);
    }
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? ((err as Error).name === 'TimeoutError' ? 'no answer in time' : (err as Error).message);
    throw new HttpError(503, `Twilio could not be reached to check the credentials (${cause}); nothing was saved. Try again in a moment.`);
  }
  if (account.status && account.status !== 'active') {
    throw fieldError('account_sid', `Twilio says this account is ${account.status}; calls could not be placed with it.`, `The Twilio account is ${account.status}.`);
  }
}
