import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { unwrap } from '../api';
import { useApi, useSession } from '../session';
import { Empty, ErrorBanner, Loading, Notice, PageTitle, Table } from '../ui/common';
import { TextField } from '../ui/fields';
import { useLoad, useSubmit } from '../ui/hooks';

type NamedNumber = { id: number; phone_number: string; label: string | null };

export default function Account() {
  const api = useApi();
  const { signOut } = useSession();
  const me = useLoad(() => unwrap(api.GET('/api/user/me')), []);
  const numbers = useLoad(async () => (await unwrap(api.GET('/api/user/phone-numbers'))).data, []);
  const [naming, setNaming] = useState<NamedNumber | null>(null);
  const tokens = useLoad(async () => (await unwrap(api.GET('/api/user/tokens'))).data, []);
  const [secret, setSecret] = useState<string | null>(null);
  const [issued, setIssued] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const action = useSubmit();

  const reveal = async () => {
    const res = await action.run(() => unwrap(api.GET('/api/user/webhook-secret')));
    if (res) setSecret(res.secret);
  };
  const rotate = async () => {
    if (!window.confirm('Replace the webhook secret? Receivers must check signatures with the new one from now on.')) return;
    const res = await action.run(() => unwrap(api.POST('/api/user/webhook-secret/rotate')));
    if (res) {
      setSecret(res.secret);
      setNotice('The webhook secret was replaced.');
    }
  };
  const issue = async () => {
    const res = await action.run(() => unwrap(api.POST('/api/user/tokens')));
    if (res) {
      setIssued(res.data.token);
      tokens.reload();
    }
  };
  const revoke = async (id: number, current: boolean) => {
    const question = current ? 'Revoke the token you are signed in with? You will be signed out.' : `Revoke token #${id}? Clients using it stop working at once.`;
    if (!window.confirm(question)) return;
    const res = await action.run(() => unwrap(api.DELETE('/api/user/tokens/{id}', { params: { path: { id: String(id) } } })));
    if (res && current) signOut();
    else if (res) {
      setNotice(res.message);
      tokens.reload();
    }
  };

  return (
    <>
      <PageTitle>Account</PageTitle>
      <ErrorBanner error={me.error ?? action.error} />
      {notice && <Notice>{notice}</Notice>}
      {me.data && (
        <dl className="facts">
          <div><dt>Name</dt><dd>{me.data.name}</dd></div>
          <div><dt>Email</dt><dd>{me.data.email}</dd></div>
          <div><dt>Mid-call tools allowed</dt><dd>{me.data.max_tools}</dd></div>
          <div><dt>Calls at once allowed</dt><dd>{me.data.max_calls_in_parallel}</dd></div>
        </dl>
      )}

      <section aria-labelledby="provider-keys-heading">
        <h2 id="provider-keys-heading">Provider keys</h2>
        <p>
          Your own LLM (any OpenAI-compatible server) and Deepgram, ElevenLabs and OpenAI keys for your calls, each with a test: <Link to="/settings/keys">Provider keys</Link>.
        </p>
      </section>

      <section aria-labelledby="numbers-heading">
        <h2 id="numbers-heading">Phone numbers</h2>
        {numbers.loading && !numbers.data && <Loading what="phone numbers" />}
        {numbers.data && numbers.data.length === 0 && <Empty>No phone numbers yet; the operator adds them.</Empty>}
        {numbers.data && numbers.data.length > 0 && (
          <Table caption="Your phone numbers" columns={['Number', 'Name', 'Country', 'Kind', 'Free for an inbound assistant', 'Actions']}>
              {numbers.data.map((n) => (
                <tr key={n.id}>
                  <td className="mono">{n.phone_number}</td>
                  <td>{n.label ?? '—'}</td>
                  <td>{n.country_code}</td>
                  <td>{n.type_label}</td>
                  <td>{n.is_available ? 'yes' : 'no'}</td>
                  <td>
                    <button type="button" className="secondary" onClick={() => setNaming(n)} aria-label={`Name ${n.phone_number}`}>
                      Name
                    </button>
                  </td>
                </tr>
              ))}
          </Table>
        )}
        {naming && (
          <NameNumber
            key={naming.id}
            number={naming}
            onDone={(message) => {
              setNaming(null);
              if (message) setNotice(message);
              numbers.reload();
            }}
          />
        )}
      </section>

      <section aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">API tokens</h2>
        {issued && (
          <div className="notice" role="status">
            New token (copy it now, it is not shown again): <code className="secret">{issued}</code>
          </div>
        )}
        {tokens.data && (
          <Table caption="Your API tokens" columns={['Token', 'Issued (UTC)', 'State', 'Actions']}>
              {tokens.data.map((tk) => (
                <tr key={tk.id}>
                  <td>#{tk.id}{tk.current && ' (this session)'}</td>
                  <td>{tk.created_at.replace('T', ' ').slice(0, 19)}</td>
                  <td>{tk.revoked_at ? `revoked ${tk.revoked_at.replace('T', ' ').slice(0, 19)}` : 'active'}</td>
                  <td>
                    {!tk.revoked_at && (
                      <button type="button" className="danger" onClick={() => revoke(tk.id, tk.current)} aria-label={`Revoke token ${tk.id}`}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
          </Table>
        )}
        <button type="button" onClick={issue} disabled={action.busy}>
          Issue a new token
        </button>
      </section>

      <section aria-labelledby="secret-heading">
        <h2 id="secret-heading">Webhook secret</h2>
        <p>Webhooks are signed with this secret (Standard Webhooks); check the signature on your receiver.</p>
        {secret && (
          <p>
            <code className="secret">{secret}</code>
          </p>
        )}
        <div className="button-row">
          <button type="button" className="secondary" onClick={reveal} disabled={action.busy}>
            Reveal the webhook secret
          </button>
          <button type="button" className="danger" onClick={rotate} disabled={action.busy}>
            Rotate the webhook secret
          </button>
        </div>
      </section>
    </>
  );
}

/** The owner's own name for a number ("Berlin office"); empty clears it. */
function NameNumber({ number, onDone }: { number: NamedNumber; onDone(message: string | null): void }) {
  const api = useApi();
  const [label, setLabel] = useState(number.label ?? '');
  const submit = useSubmit();
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const res = await submit.run(() => unwrap(api.PATCH('/api/user/phone-numbers/{id}', { params: { path: { id: String(number.id) } }, body: { label } })));
    if (res) onDone(res.data.label ? `${number.phone_number} is now called "${res.data.label}".` : `${number.phone_number} has no name now.`);
  };
  return (
    <form className="panel inline-form" onSubmit={onSubmit} noValidate aria-labelledby="name-number-heading">
      <h3 id="name-number-heading">Name {number.phone_number}</h3>
      <TextField label="Name (empty: none)" value={label} onChange={setLabel} errors={submit.fieldErrors.label} hint="Up to 64 characters, e.g. Berlin office" />
      <div className="button-row">
        <button type="submit" disabled={submit.busy}>
          Save name
        </button>
        <button type="button" className="secondary" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
      <ErrorBanner error={Object.keys(submit.fieldErrors).length ? null : submit.error} />
    </form>
  );
}
