/** `users`, `tokens`, `numbers`, `voices` and `admin-token`: the account operations of src/accounts, for operators. */
import { rotateAdminToken } from '../accounts/admin-token.js';
import { issueToken, listTokens, revokeToken } from '../accounts/api-tokens.js';
import { twilioCredentialSource } from '../accounts/carrier-accounts.js';
import { AccountError } from '../accounts/errors.js';
import { addPhoneNumber, carrierSidProblem, listPhoneNumbers, removePhoneNumber, type PhoneCarrier, type PhoneNumberType } from '../accounts/phone-numbers.js';
import { createUser, disableUser, enableUser, listUsers, requireUser, type UserSummary } from '../accounts/users.js';
import { addVoice, listVoices, voiceProviderProblem, type VoiceMode } from '../accounts/voices.js';
import { CliError, withDatabase, type Session } from './session.js';

function userRecord(u: UserSummary) {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    max_tools: u.maxTools,
    max_calls_in_parallel: u.maxCallsInParallel,
    active_tokens: u.activeTokens,
    disabled_at: u.disabledAt,
    created_at: u.createdAt,
  };
}

export async function usersCreate(s: Session, input: { name: string; email: string; maxTools?: number; maxCalls?: number }) {
  if (!/^[^\s@]+@[^\s@]+$/.test(input.email)) throw new CliError(`Not an email address: ${input.email}`);
  await withDatabase(s, async ({ database, out }) => {
    const { user, token } = await createUser(database.db, {
      name: input.name,
      email: input.email,
      maxTools: input.maxTools,
      maxCallsInParallel: input.maxCalls,
    });
    out.record({ id: user.id, name: user.name, email: user.email, max_tools: user.maxTools, max_calls_in_parallel: user.maxCallsInParallel, token });
    out.note('The token is shown once; keep it. Add a phone number with `npx switchboard numbers add <user> <number>`.');
  });
}

export async function usersList(s: Session) {
  await withDatabase(s, async ({ database, out }) => {
    const { users } = await listUsers(database.db, { limit: 100_000 });
    out.table(users.map(userRecord), ['id', 'name', 'email', 'max_tools', 'max_calls_in_parallel', 'active_tokens', 'disabled_at', 'created_at']);
  });
}

export async function usersDisable(s: Session, ref: string) {
  await withDatabase(s, async ({ database, out }) => {
    const user = await requireUser(database.db, ref);
    const { user: disabled, stoppedCampaigns } = await disableUser(database.db, user.id);
    if (out.json) return out.record({ ...userRecord(disabled), stopped_campaigns: stoppedCampaigns });
    out.note(`User ${disabled.id} (${disabled.email}) is disabled: its tokens are refused from now on; ${stoppedCampaigns} running campaign(s) stopped.`);
  });
}

export async function usersEnable(s: Session, ref: string) {
  await withDatabase(s, async ({ database, out }) => {
    const user = await requireUser(database.db, ref);
    const enabled = await enableUser(database.db, user.id);
    if (out.json) return out.record(userRecord(enabled));
    out.note(`User ${enabled.id} (${enabled.email}) is enabled: its tokens work again; its campaigns stay stopped until started.`);
  });
}

export async function tokensIssue(s: Session, ref: string) {
  await withDatabase(s, async ({ database, out }) => {
    const user = await requireUser(database.db, ref);
    const { id, token } = await issueToken(database.db, user.id);
    out.record({ id, user_id: user.id, token });
    out.note('The token is shown once; keep it.');
  });
}

export async function tokensList(s: Session, ref: string) {
  await withDatabase(s, async ({ database, out }) => {
    const user = await requireUser(database.db, ref);
    const tokens = await listTokens(database.db, user.id);
    out.table(tokens.map((t) => ({ id: t.id, user_id: t.userId, created_at: t.createdAt, revoked_at: t.revokedAt })), ['id', 'user_id', 'created_at', 'revoked_at']);
  });
}

export async function tokensRevoke(s: Session, tokenId: number, userRef?: string) {
  await withDatabase(s, async ({ database, out }) => {
    const userId = userRef === undefined ? undefined : (await requireUser(database.db, userRef)).id;
    const hash = await revokeToken(database.db, tokenId, userId);
    if (!hash) throw new AccountError('token-not-found', `No active token ${tokenId}${userRef ? ` of user ${userRef}` : ''}.`);
    if (out.json) return out.record({ id: tokenId, revoked: true });
    out.note(`Token ${tokenId} is revoked; every running instance refuses it from now on.`);
  });
}

function numberRecord(n: { id: number; userId: number; phoneNumber: string; countryCode: string; typeLabel: string; carrier: string; carrierSid: string | null; assigned: boolean }) {
  return {
    id: n.id,
    user_id: n.userId,
    phone_number: n.phoneNumber,
    country_code: n.countryCode,
    type_label: n.typeLabel,
    carrier: n.carrier,
    carrier_sid: n.carrierSid,
    assigned: n.assigned,
  };
}

export async function numbersAdd(s: Session, ref: string, phoneNumber: string, opts: { type: PhoneNumberType; country?: string; carrier?: PhoneCarrier; carrierSid?: string }) {
  if (opts.country !== undefined && !/^[A-Za-z]{2}$/.test(opts.country)) throw new CliError(`--country takes a two-letter code such as DE, not ${opts.country}`);
  const carrier = opts.carrier ?? 'sandbox';
  const carrierSid = opts.carrierSid || null; // `--carrier-sid ""` is no sid, as in the admin API
  const sidProblem = carrierSidProblem(carrier, carrierSid);
  if (sidProblem === 'prohibited') throw new CliError(`--carrier-sid is only for --carrier twilio (this number's carrier is ${carrier})`);
  if (sidProblem === 'format') throw new CliError(`--carrier-sid takes Twilio's number sid, PN and 32 hex digits, not ${carrierSid}`);
  await withDatabase(s, async ({ database, out, config }) => {
    const user = await requireUser(database.db, ref);
    const number = await addPhoneNumber(
      database.db,
      { userId: user.id, phoneNumber, typeLabel: opts.type, countryCode: opts.country, carrier, carrierSid },
      config.DEFAULT_PHONE_REGION,
      twilioCredentialSource(config),
    );
    out.record(numberRecord(number));
  });
}

export async function numbersList(s: Session, userRef?: string) {
  await withDatabase(s, async ({ database, out }) => {
    const userId = userRef === undefined ? undefined : (await requireUser(database.db, userRef)).id;
    const numbers = await listPhoneNumbers(database.db, { userId });
    out.table(numbers.map(numberRecord), ['id', 'user_id', 'phone_number', 'country_code', 'type_label', 'carrier', 'assigned']);
  });
}

export async function numbersRemove(s: Session, id: number) {
  await withDatabase(s, async ({ database, out }) => {
    const { number, detachedAssistants } = await removePhoneNumber(database.db, id);
    if (out.json) return out.record({ ...numberRecord(number), detached_assistants: detachedAssistants });
    out.note(`Phone number ${number.id} (${number.phoneNumber}) removed; call records keep it.${detachedAssistants ? ` ${detachedAssistants} assistant(s) no longer have a phone number.` : ''}`);
  });
}

function voiceRecord(v: { id: number; name: string; mode: string; userId: number | null; provider: string; providerVoiceId: string | null }) {
  return { id: v.id, name: v.name, mode: v.mode, user_id: v.userId, provider: v.provider, provider_voice_id: v.providerVoiceId };
}

export async function voicesAdd(s: Session, input: { name: string; mode: VoiceMode; user?: string; provider?: string; providerVoiceId?: string }) {
  const providerProblem = input.provider === undefined ? null : voiceProviderProblem(input.provider);
  if (providerProblem) throw new CliError(`--provider: ${providerProblem}`);
  await withDatabase(s, async ({ database, out }) => {
    const userId = input.user === undefined ? null : (await requireUser(database.db, input.user)).id;
    const voice = await addVoice(database.db, { name: input.name, mode: input.mode, userId, provider: input.provider, providerVoiceId: input.providerVoiceId });
    out.record(voiceRecord(voice));
  });
}

export async function voicesList(s: Session, userRef?: string) {
  await withDatabase(s, async ({ database, out }) => {
    const userId = userRef === undefined ? undefined : (await requireUser(database.db, userRef)).id;
    const voices = await listVoices(database.db, { userId });
    out.table(voices.map(voiceRecord), ['id', 'name', 'mode', 'user_id', 'provider', 'provider_voice_id']);
  });
}

/**
 * Recovery for a lost admin token. With ADMIN_TOKEN set the service accepts that value only,
 * so a stored token would change nothing: refused, saying where the token really lives.
 */
export async function adminTokenRotate(s: Session) {
  if (s.config.ADMIN_TOKEN) {
    throw new AccountError(
      'admin-token-from-env',
      'ADMIN_TOKEN is set, and the service then accepts only that value. To replace it, change ADMIN_TOKEN where the service is configured and restart it; to use a generated token instead, unset ADMIN_TOKEN (here and for the service) and run this again.',
    );
  }
  await withDatabase(s, async ({ database, out }) => {
    const token = await rotateAdminToken(database.db);
    out.record({ admin_token: token });
    out.note('The previous admin token stops working now on every instance without ADMIN_TOKEN. This one is shown once; keep it.');
  });
}
