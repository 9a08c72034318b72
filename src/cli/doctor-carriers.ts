/**
 * `doctor` checks of what calls are placed with: the Twilio carrier (every account holding a
 * Twilio number has credentials that open, and Twilio accepts them) and the voices (each names
 * a provider Switchboard has). "ok" means what it says: a check that cannot know says warn.
 */
import { openTwilioAccount, twilioCredentialSource, twilioCredentialsProblem } from '../accounts/carrier-accounts.js';
import { voiceProviderProblem } from '../accounts/voices.js';
import { TwilioApiError, TwilioRestClient, type TwilioCredentials } from '../telephony/twilio/rest-client.js';
import type { Check, CheckResult } from './doctor.js';

/** At most this many accounts' credentials are tried against Twilio in one run. */
const MAX_TWILIO_PROBES = 20;

async function twilioAccepts(apiUrl: string, credentials: TwilioCredentials, timeoutMs: number): Promise<string | null> {
  try {
    const account = await new TwilioRestClient({ apiUrl, credentials, timeoutMs }).fetchAccount();
    return account.status && account.status !== 'active' ? `the account ${credentials.accountSid} is ${account.status}` : null;
  } catch (err) {
    if (err instanceof TwilioApiError) return err.status === 401 || err.status === 403 ? `Twilio refused the credentials of ${credentials.accountSid} (${err.status})` : `Twilio answered ${err.status} for ${credentials.accountSid}`;
    return `${apiUrl} did not answer (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message})`;
  }
}

export const twilioCheck: Check = {
  name: 'carrier: twilio',
  needsDatabase: true,
  async run({ config, database, timeoutMs }): Promise<CheckResult> {
    const db = database!.db;
    const source = twilioCredentialSource(config);
    const { rows } = await database!.pool.query<{ user_id: number; numbers: number }>(
      "SELECT user_id, count(*)::int AS numbers FROM phone_numbers WHERE carrier = 'twilio' GROUP BY user_id ORDER BY user_id",
    );
    if (rows.length === 0 && !source.deployment) return { status: 'ok', detail: 'not used (no Twilio numbers, no TWILIO_ACCOUNT_SID)' };
    const problems: string[] = [];
    const toProbe = new Map<string, { who: string; credentials: TwilioCredentials }>();
    if (config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN) {
      toProbe.set(config.TWILIO_ACCOUNT_SID, { who: 'the deployment', credentials: { accountSid: config.TWILIO_ACCOUNT_SID, authToken: config.TWILIO_AUTH_TOKEN } });
    }
    for (const { user_id: userId } of rows) {
      const problem = await twilioCredentialsProblem(db, source, userId);
      if (problem) {
        problems.push(problem);
        continue;
      }
      const own = await openTwilioAccount(db, source.key, userId);
      if (own && toProbe.size < MAX_TWILIO_PROBES) toProbe.set(`${own.accountSid}:${userId}`, { who: `user ${userId}`, credentials: own });
    }
    for (const { who, credentials } of toProbe.values()) {
      const refused = await twilioAccepts(config.TWILIO_API_URL, credentials, timeoutMs);
      if (refused) problems.push(`${who}: ${refused}`);
    }
    const numbers = rows.reduce((n, r) => n + r.numbers, 0);
    if (problems.length > 0) {
      return {
        status: 'fail',
        detail: `${numbers} Twilio number(s) of ${rows.length} account(s); ${problems.join('; ')}`,
        fix: "store each account's Twilio credentials (PUT /api/admin/users/{id}/carriers/twilio) or set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN to credentials Twilio accepts",
      };
    }
    return { status: 'ok', detail: `${numbers} Twilio number(s) of ${rows.length} account(s); Twilio accepts the credentials of ${[...toProbe.values()].map((p) => p.who).join(', ')}` };
  },
};

export const voicesCheck: Check = {
  name: 'voices',
  needsDatabase: true,
  async run({ database }): Promise<CheckResult> {
    const { rows } = await database!.pool.query<{ id: number; name: string; provider: string }>('SELECT id, name, provider FROM voices ORDER BY id');
    const unknown = rows.filter((v) => voiceProviderProblem(v.provider) !== null);
    if (unknown.length > 0) {
      return {
        status: 'fail',
        detail: `${unknown.length} of ${rows.length} voice(s) name a provider Switchboard does not have: ${unknown.slice(0, 10).map((v) => `${v.id} ${JSON.stringify(v.name)} (${v.provider})`).join(', ')}`,
        fix: 'assistants with these voices cannot speak: give them another voice, then remove or correct these rows',
      };
    }
    return { status: 'ok', detail: `${rows.length} voice(s), each of a known provider` };
  },
};
