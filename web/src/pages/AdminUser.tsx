import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { BackLink, Empty, ErrorBanner, Loading, Notice, PageTitle, StatusBadge, Table } from '../ui/common';
import { Select, TextField } from '../ui/fields';
import { useLoad, useSubmit } from '../ui/hooks';
import TwilioCredentials from './AdminUserTwilio';

type AdminNumber = { id: number; phone_number: string };

export default function AdminUser() {
  const id = String(Number(useParams().id));
  const api = useApi();
  const user = useLoad(async () => (await unwrap(api.GET('/api/admin/users/{id}', { params: { path: { id } } }))).data, [id]);
  const tokens = useLoad(async () => (await unwrap(api.GET('/api/admin/users/{id}/tokens', { params: { path: { id } } }))).data, [id]);
  const numbers = useLoad(async () => (await unwrap(api.GET('/api/admin/users/{id}/phone-numbers', { params: { path: { id } } }))).data, [id]);
  const action = useSubmit();
  const [notice, setNotice] = useState<string | null>(null);
  const [issued, setIssued] = useState<string | null>(null);
  const [moving, setMoving] = useState<AdminNumber | null>(null);

  if (user.error) return <ErrorBanner error={user.error} />;
  if (!user.data) return <Loading what="the user" />;
  const u = user.data;

  const toggle = async () => {
    setNotice(null);
    if (!u.disabled_at && !window.confirm(`Disable ${u.name}? Their tokens stop working at once and their running campaigns stop.`)) return;
    const res = u.disabled_at
      ? await action.run(() => unwrap(api.POST('/api/admin/users/{id}/enable', { params: { path: { id } } })))
      : await action.run(() => unwrap(api.POST('/api/admin/users/{id}/disable', { params: { path: { id } } })));
    if (res) {
      setNotice(res.message);
      user.reload();
    }
  };
  const issue = async () => {
    const res = await action.run(() => unwrap(api.POST('/api/admin/users/{id}/tokens', { params: { path: { id } } })));
    if (res) {
      setIssued((res as { data: { token: string } }).data.token);
      tokens.reload();
    }
  };
  const removeNumber = async (n: AdminNumber) => {
    setNotice(null);
    if (!window.confirm(`Remove ${n.phone_number}? Calls made on it stay in the call history.`)) return;
    const res = await action.run(() => unwrap(api.DELETE('/api/admin/phone-numbers/{id}', { params: { path: { id: String(n.id) } } })));
    if (res) {
      setNotice(`${n.phone_number}: ${res.message.toLowerCase()}.`);
      numbers.reload();
    }
  };
  const revoke = async (tokenId: number) => {
    if (!window.confirm(`Revoke token #${tokenId}? Clients using it stop working at once.`)) return;
    const res = await action.run(() => unwrap(api.DELETE('/api/admin/users/{id}/tokens/{tokenId}', { params: { path: { id, tokenId: String(tokenId) } } })));
    if (res) {
      setNotice(res.message);
      tokens.reload();
    }
  };

  return (
    <>
      <BackLink to="/admin">Users and voices</BackLink>
      <PageTitle
        actions={
          <button type="button" className={u.disabled_at ? '' : 'danger'} onClick={toggle} disabled={action.busy}>
            {u.disabled_at ? 'Enable user' : 'Disable user'}
          </button>
        }
      >
        User: {u.name}
      </PageTitle>
      <ErrorBanner error={action.error} />
      {notice && <Notice>{notice}</Notice>}
      <dl className="facts">
        <div><dt>Email</dt><dd>{u.email}</dd></div>
        <div><dt>State</dt><dd><StatusBadge status={u.disabled_at ? 'disabled' : 'active'} /></dd></div>
        <div><dt>Tools allowed</dt><dd>{u.max_tools}</dd></div>
        <div><dt>Calls at once</dt><dd>{u.max_calls_in_parallel}</dd></div>
        <div><dt>Created (UTC)</dt><dd>{u.created_at.replace('T', ' ').slice(0, 19)}</dd></div>
      </dl>

      <section aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">API tokens</h2>
        {issued && (
          <div className="notice" role="status">
            New token (copy it now, it is not shown again): <code className="secret">{issued}</code>
          </div>
        )}
        {tokens.data && tokens.data.length === 0 && <Empty>No tokens.</Empty>}
        {tokens.data && tokens.data.length > 0 && (
          <Table caption="Tokens of the user" columns={['Token', 'Issued (UTC)', 'State', 'Actions']}>
              {tokens.data.map((t) => (
                <tr key={t.id}>
                  <td>#{t.id}</td>
                  <td>{t.created_at.replace('T', ' ').slice(0, 19)}</td>
                  <td>{t.revoked_at ? 'revoked' : 'active'}</td>
                  <td>
                    {!t.revoked_at && (
                      <button type="button" className="danger" onClick={() => revoke(t.id)} aria-label={`Revoke token ${t.id}`}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
          </Table>
        )}
        <button type="button" onClick={issue} disabled={action.busy || Boolean(u.disabled_at)}>
          Issue a token
        </button>
      </section>

      <section aria-labelledby="numbers-heading">
        <h2 id="numbers-heading">Phone numbers</h2>
        {numbers.data && numbers.data.length === 0 && <Empty>No phone numbers.</Empty>}
        {numbers.data && numbers.data.length > 0 && (
          <Table caption="Phone numbers of the user" columns={['Number', 'Name', 'Country', 'Kind', 'Carrier', 'Free for an inbound assistant', 'Actions']}>
              {numbers.data.map((n) => (
                <tr key={n.id}>
                  <td className="mono">{n.phone_number}</td>
                  <td>{n.label ?? '—'}</td>
                  <td>{n.country_code}</td>
                  <td>{n.type_label}</td>
                  <td>{n.carrier}</td>
                  <td>{n.is_available ? 'yes' : 'no'}</td>
                  <td>
                    <div className="button-row">
                      <button type="button" className="secondary" onClick={() => setMoving(n)} aria-label={`Move ${n.phone_number} to another user`}>
                        Move
                      </button>
                      <button type="button" className="danger" onClick={() => removeNumber(n)} disabled={action.busy} aria-label={`Remove ${n.phone_number}`}>
                        Remove
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
          </Table>
        )}
        {moving && (
          <MoveNumber
            number={moving}
            ownerId={u.id}
            onDone={(message) => {
              setMoving(null);
              if (message) setNotice(message);
              numbers.reload();
            }}
          />
        )}
        <AddNumber userId={id} onAdded={numbers.reload} />
      </section>

      <TwilioCredentials userId={id} />
    </>
  );
}

function AddNumber({ userId, onAdded }: { userId: string; onAdded(): void }) {
  const api = useApi();
  const [phone, setPhone] = useState('');
  const [kind, setKind] = useState('Normal');
  const [carrier, setCarrier] = useState('sandbox');
  const [sid, setSid] = useState('');
  const submit = useSubmit();
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const body = { phone_number: phone, type_label: kind, carrier, ...(carrier === 'twilio' ? { carrier_sid: sid.trim() || null } : {}) };
    const res = await submit.run(() => unwrap(api.POST('/api/admin/users/{id}/phone-numbers', { params: { path: { id: userId } }, body: body as never })));
    if (res) {
      setPhone('');
      setSid('');
      onAdded();
    }
  };
  return (
    <form className="panel inline-form" onSubmit={onSubmit} noValidate aria-labelledby="add-number-heading">
      <h3 id="add-number-heading">Add a phone number</h3>
      <TextField label="Phone number" value={phone} onChange={setPhone} errors={submit.fieldErrors.phone_number} />
      <Select label="Kind" value={kind} onChange={setKind} errors={submit.fieldErrors.type_label} options={['Normal', 'SIP', 'Caller ID'].map((k) => ({ value: k, label: k }))} />
      <Select
        label="Carrier"
        value={carrier}
        onChange={setCarrier}
        errors={submit.fieldErrors.carrier}
        options={[{ value: 'sandbox', label: 'Sandbox (simulated)' }, { value: 'twilio', label: 'Twilio' }]}
      />
      {carrier === 'twilio' && (
        <TextField label="Twilio number SID (optional)" value={sid} onChange={setSid} errors={submit.fieldErrors.carrier_sid} hint="PN followed by 32 characters" />
      )}
      <button type="submit" disabled={submit.busy}>
        Add number
      </button>
      <ErrorBanner error={Object.keys(submit.fieldErrors).length ? null : submit.error} />
    </form>
  );
}

/** Gives a number to another user; the service refuses while an assistant or a call uses it. */
function MoveNumber({ number, ownerId, onDone }: { number: AdminNumber; ownerId: number; onDone(message: string | null): void }) {
  const api = useApi();
  const users = useLoad(async () => (await unwrap(api.GET('/api/admin/users', { params: { query: { per_page: '100' } } }))).data, []);
  const others = (users.data ?? []).filter((x) => x.id !== ownerId);
  const [target, setTarget] = useState('');
  const [missing, setMissing] = useState(false);
  const submit = useSubmit();
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const to = others.find((x) => String(x.id) === target);
    setMissing(!to);
    if (!to) return;
    if (!window.confirm(`Move ${number.phone_number} to ${to.name}? Its name goes, and ${to.name} can use it for their assistants.`)) return;
    const res = await submit.run(() => unwrap(api.PATCH('/api/admin/phone-numbers/{id}', { params: { path: { id: String(number.id) } }, body: { user_id: target } })));
    if (res) onDone(`${number.phone_number} now belongs to ${to.name}.`);
  };
  return (
    <form className="panel inline-form" onSubmit={onSubmit} noValidate aria-labelledby="move-number-heading">
      <h3 id="move-number-heading">Move {number.phone_number} to another user</h3>
      <ErrorBanner error={users.error} />
      <Select
        label="New owner"
        value={target}
        onChange={setTarget}
        errors={missing ? ['Choose the user who gets the number.'] : submit.fieldErrors.user_id}
        options={[{ value: '', label: 'Choose a user' }, ...others.map((x) => ({ value: String(x.id), label: `${x.name} (${x.email})` }))]}
      />
      <div className="button-row">
        <button type="submit" disabled={submit.busy}>
          Move number
        </button>
        <button type="button" className="secondary" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
      <ErrorBanner error={Object.keys(submit.fieldErrors).length ? null : submit.error} />
    </form>
  );
}
