/**
 * A user's own Twilio credentials on the admin's user page: what is stored (the SIDs and a hint
 * of the auth token, never the secrets), a form that replaces it — the service asks Twilio
 * whether it accepts the credentials before saving them — and removal.
 */
import { useState, type FormEvent } from 'react';
import { ApiError, unwrap } from '../api';
import { useApi } from '../session';
import { ErrorBanner, Notice } from '../ui/common';
import { TextField } from '../ui/fields';
import { useLoad, useSubmit } from '../ui/hooks';

export default function TwilioCredentials({ userId }: { userId: string }) {
  const api = useApi();
  const stored = useLoad(async () => {
    try {
      return (await unwrap(api.GET('/api/admin/users/{id}/carriers/twilio', { params: { path: { id: userId } } }))).data;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null; // none stored
      throw err;
    }
  }, [userId]);
  const [accountSid, setAccountSid] = useState('');
  const [authToken, setAuthToken] = useState('');
  const [keySid, setKeySid] = useState('');
  const [keySecret, setKeySecret] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const submit = useSubmit();
  const removal = useSubmit();

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setNotice(null);
    const body = { account_sid: accountSid.trim(), auth_token: authToken, api_key_sid: keySid.trim() || null, api_key_secret: keySecret || null };
    const res = await submit.run(() => unwrap(api.PUT('/api/admin/users/{id}/carriers/twilio', { params: { path: { id: userId } }, body })));
    if (res) {
      setNotice('Twilio accepted the credentials; they are saved.');
      setAuthToken('');
      setKeySecret('');
      stored.reload();
    }
  };
  const remove = async () => {
    setNotice(null);
    if (!window.confirm("Remove this user's Twilio credentials? Their Twilio calls use the deployment's credentials again, or fail when there are none.")) return;
    const res = await removal.run(() => unwrap(api.DELETE('/api/admin/users/{id}/carriers/twilio', { params: { path: { id: userId } } })));
    if (res) {
      setNotice(res.message);
      stored.reload();
    }
  };

  const current = stored.data;
  return (
    <section aria-labelledby="twilio-heading">
      <h2 id="twilio-heading">Twilio credentials</h2>
      <ErrorBanner error={stored.error ?? removal.error} />
      {notice && <Notice>{notice}</Notice>}
      {current === null && <p>None stored: this user's Twilio calls use the deployment's credentials, if it has them.</p>}
      {current && (
        <>
          <dl className="facts">
            <div><dt>Account SID</dt><dd className="mono">{current.account_sid}</dd></div>
            <div><dt>Auth token</dt><dd className="mono">{current.auth_token_hint}</dd></div>
            <div><dt>API key</dt><dd className="mono">{current.api_key_sid ?? 'none (REST uses the auth token)'}</dd></div>
            <div><dt>Saved (UTC)</dt><dd>{current.updated_at.replace('T', ' ').slice(0, 19)}</dd></div>
          </dl>
          <button type="button" className="danger" onClick={remove} disabled={removal.busy}>
            Remove Twilio credentials
          </button>
        </>
      )}
      <form className="panel inline-form" onSubmit={onSubmit} noValidate aria-labelledby="twilio-form-heading">
        <h3 id="twilio-form-heading">{current ? 'Replace the credentials' : 'Add credentials'}</h3>
        <TextField label="Account SID" name="account_sid" value={accountSid} onChange={setAccountSid} errors={submit.fieldErrors.account_sid} hint="AC followed by 32 characters (Twilio Console, Account info)" />
        <TextField label="Auth token" name="auth_token" type="password" value={authToken} onChange={setAuthToken} errors={submit.fieldErrors.auth_token} />
        <TextField label="API key SID (optional)" name="api_key_sid" value={keySid} onChange={setKeySid} errors={submit.fieldErrors.api_key_sid} />
        <TextField label="API key secret (optional)" name="api_key_secret" type="password" value={keySecret} onChange={setKeySecret} errors={submit.fieldErrors.api_key_secret} />
        <button type="submit" disabled={submit.busy}>
          {submit.busy ? 'Checking with Twilio…' : 'Check and save'}
        </button>
        <ErrorBanner error={submit.error} />
      </form>
    </section>
  );
}
