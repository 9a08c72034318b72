import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { unwrap, type paths } from '../api';
import { useApi } from '../session';
import { Empty, ErrorBanner, Loading, Notice, PageTitle, Pager, StatusBadge, Table } from '../ui/common';
import { NumberField, Select, TextField } from '../ui/fields';
import { useLoad, useSubmit } from '../ui/hooks';

const asNumber = (s: string): number | string | undefined => (s.trim() === '' ? undefined : Number.isFinite(Number(s)) ? Number(s) : s);

export default function Admin() {
  const api = useApi();
  const [page, setPage] = useState(1);
  const users = useLoad(() => unwrap(api.GET('/api/admin/users', { params: { query: { page: String(page), per_page: '25' } } })), [page]);
  const voices = useLoad(async () => (await unwrap(api.GET('/api/admin/voices'))).data, []);
  return (
    <>
      <PageTitle>Users and voices</PageTitle>
      <CreateUser onCreated={users.reload} />
      <section aria-labelledby="users-heading">
        <h2 id="users-heading">Users</h2>
        <ErrorBanner error={users.error} />
        {users.loading && !users.data && <Loading what="users" />}
        {users.data && users.data.total === 0 && <Empty>No users yet.</Empty>}
        {users.data && users.data.total > 0 && (
          <>
            <Table caption="Users" columns={['Name', 'Email', 'State', 'Active tokens', 'Tools allowed', 'Calls at once']}>
                {users.data.data.map((u) => (
                  <tr key={u.id}>
                    <td>
                      <Link to={`/admin/users/${u.id}`}>{u.name}</Link>
                    </td>
                    <td>{u.email}</td>
                    <td>
                      <StatusBadge status={u.disabled_at ? 'disabled' : 'active'} />
                    </td>
                    <td>{u.active_tokens}</td>
                    <td>{u.max_tools}</td>
                    <td>{u.max_calls_in_parallel}</td>
                  </tr>
                ))}
            </Table>
            <Pager label="User list" page={users.data.current_page} lastPage={users.data.last_page} total={users.data.total} onPage={setPage} />
          </>
        )}
      </section>
      <section aria-labelledby="voices-heading">
        <h2 id="voices-heading">Voices</h2>
        <AddVoice onAdded={voices.reload} />
        <ErrorBanner error={voices.error} />
        {voices.data && (
          <Table caption="Voices" columns={['Name', 'Mode', 'Provider', 'Provider voice', 'Available to']}>
              {voices.data.map((v) => (
                <tr key={v.id}>
                  <td>{v.name}</td>
                  <td>{v.mode}</td>
                  <td>{PROVIDER_NAMES[v.provider] ?? v.provider}</td>
                  <td className="mono">{v.provider_voice_id ?? 'default'}</td>
                  <td>{v.user_id === null ? 'everyone' : <Link to={`/admin/users/${v.user_id}`}>user #{v.user_id}</Link>}</td>
                </tr>
              ))}
          </Table>
        )}
      </section>
    </>
  );
}

function CreateUser({ onCreated }: { onCreated(): void }) {
  const api = useApi();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [maxTools, setMaxTools] = useState('');
  const [maxCalls, setMaxCalls] = useState('');
  const [token, setToken] = useState<string | null>(null);
  const submit = useSubmit();
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setToken(null);
    const res = await submit.run(() =>
      unwrap(api.POST('/api/admin/users', { body: { name, email, max_tools: asNumber(maxTools), max_calls_in_parallel: asNumber(maxCalls) } as never })),
    );
    if (res) {
      setToken((res as { token: string }).token);
      setName('');
      setEmail('');
      onCreated();
    }
  };
  return (
    <form className="panel inline-form" onSubmit={onSubmit} noValidate aria-labelledby="create-user-heading">
      <h2 id="create-user-heading">Create a user</h2>
      <TextField label="Name" value={name} onChange={setName} errors={submit.fieldErrors.name} />
      <TextField label="Email" type="email" value={email} onChange={setEmail} errors={submit.fieldErrors.email} />
      <NumberField label="Tools allowed (default 5)" value={maxTools} onChange={setMaxTools} errors={submit.fieldErrors.max_tools} />
      <NumberField label="Calls at once (default 10)" value={maxCalls} onChange={setMaxCalls} errors={submit.fieldErrors.max_calls_in_parallel} />
      <button type="submit" disabled={submit.busy}>
        Create user
      </button>
      <ErrorBanner error={Object.keys(submit.fieldErrors).length ? null : submit.error} />
      {token && (
        <div className="notice" role="status">
          User created. Their first API token (copy it now, it is not shown again): <code className="secret">{token}</code>
        </div>
      )}
    </form>
  );
}

type VoiceProvider = NonNullable<NonNullable<paths['/api/admin/voices']['post']['requestBody']>['content']['application/json']['provider']>;
/** Who can speak a voice (the service's list; the type keeps them in step with the API). */
const VOICE_PROVIDERS: VoiceProvider[] = ['local', 'elevenlabs', 'openai'];
const PROVIDER_NAMES: Record<string, string> = { local: 'Local (eSpeak NG)', elevenlabs: 'ElevenLabs', openai: 'OpenAI' };

function AddVoice({ onAdded }: { onAdded(): void }) {
  const api = useApi();
  const [name, setName] = useState('');
  const [mode, setMode] = useState('pipeline');
  const [userId, setUserId] = useState('');
  const [provider, setProvider] = useState<VoiceProvider>('local');
  const [providerVoiceId, setProviderVoiceId] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const submit = useSubmit();
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setDone(null);
    const res = await submit.run(() => unwrap(api.POST('/api/admin/voices', { body: { name, mode, user_id: userId === '' ? null : asNumber(userId), provider, provider_voice_id: providerVoiceId.trim() || null } as never })));
    if (res) {
      setDone(`Voice "${name}" added.`);
      setName('');
      onAdded();
    }
  };
  return (
    <form className="panel inline-form" onSubmit={onSubmit} noValidate aria-labelledby="add-voice-heading">
      <h3 id="add-voice-heading">Add a voice</h3>
      <TextField label="Voice name" value={name} onChange={setName} errors={submit.fieldErrors.name} />
      <Select label="Mode" value={mode} onChange={setMode} errors={submit.fieldErrors.mode} options={['pipeline', 'multimodal'].map((m) => ({ value: m, label: m }))} />
      <TextField label="Only for user id (empty: public)" value={userId} onChange={setUserId} errors={submit.fieldErrors.user_id} />
      <Select label="Provider" value={provider} onChange={(x) => setProvider(x as VoiceProvider)} errors={submit.fieldErrors.provider} options={VOICE_PROVIDERS.map((p) => ({ value: p, label: PROVIDER_NAMES[p] }))} />
      <TextField
        label="Provider's voice id (optional)"
        value={providerVoiceId}
        onChange={setProviderVoiceId}
        errors={submit.fieldErrors.provider_voice_id}
        hint="ElevenLabs voice id or OpenAI voice name; empty: the provider's default"
      />
      <button type="submit" disabled={submit.busy}>
        Add voice
      </button>
      <ErrorBanner error={Object.keys(submit.fieldErrors).length ? null : submit.error} />
      {done && <Notice>{done}</Notice>}
    </form>
  );
}
