/**
 * Provider keys: the user's own keys for the speech vendors, used for their calls instead of the
 * service's. Each vendor says what its key is used for, shows the stored key's last characters
 * and dates, takes a new key, removes it, and tries it with one real request to the vendor.
 */
import { useState, type FormEvent } from 'react';
import { unwrap } from '../api';
import { useApi } from '../session';
import { ErrorBanner, Loading, Notice, PageTitle } from '../ui/common';
import { TextField } from '../ui/fields';
import { When } from '../ui/format';
import { useLoad, useSubmit } from '../ui/hooks';

type Provider = 'openai' | 'deepgram' | 'elevenlabs';
type StoredKey = { provider: Provider; key_hint: string; created_at: string; updated_at: string };
type KeyCheck = { ok: boolean; message: string; checked: string; status?: number; latency_ms: number; key_hint: string };

const PROVIDERS: { id: Provider; name: string; usedFor: string; where: string }[] = [
  {
    id: 'openai',
    name: 'OpenAI',
    usedFor: 'Speech-to-text, text-to-speech (voices whose provider is OpenAI) and speech-to-speech (assistants in multimodal mode).',
    where: "Used on OpenAI's own servers; where the service sends speech to another server, that server keeps its own key. Not the language model: the LLM is the service's own setting.",
  },
  { id: 'deepgram', name: 'Deepgram', usedFor: "Speech-to-text: hears callers live during phone calls.", where: 'Takes the place of the service’s Deepgram key for your calls.' },
  { id: 'elevenlabs', name: 'ElevenLabs', usedFor: 'Text-to-speech: the voices whose provider is ElevenLabs.', where: 'Takes the place of the service’s ElevenLabs key for your calls.' },
];

export default function ProviderKeys() {
  const api = useApi();
  const keys = useLoad(async () => (await unwrap(api.GET('/api/user/provider-keys'))).data as StoredKey[], []);
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <>
      <PageTitle>Provider keys</PageTitle>
      <p>
        Your own keys for the speech vendors. Your calls use them instead of the service’s. Keys are stored encrypted and shown only by their last four
        characters; “Test” sends one read-only request to the vendor with the key and says what it answered.
      </p>
      <ErrorBanner error={keys.error} />
      {notice && <Notice>{notice}</Notice>}
      {keys.loading && !keys.data && <Loading what="provider keys" />}
      {keys.data &&
        PROVIDERS.map((p) => (
          <ProviderSection
            key={p.id}
            provider={p}
            stored={keys.data!.find((k) => k.provider === p.id) ?? null}
            onChanged={(message) => {
              setNotice(message);
              keys.reload();
            }}
          />
        ))}
    </>
  );
}

function ProviderSection({ provider: p, stored, onChanged }: { provider: (typeof PROVIDERS)[number]; stored: StoredKey | null; onChanged(message: string): void }) {
  const api = useApi();
  const path = { params: { path: { provider: p.id } } };
  const [value, setValue] = useState('');
  const [result, setResult] = useState<KeyCheck | null>(null);
  const save = useSubmit();
  const action = useSubmit();
  const headingId = `${p.id}-heading`;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const res = await save.run(() => unwrap(api.PUT('/api/user/provider-keys/{provider}', { ...path, body: { api_key: value.trim() } })));
    if (res) {
      setValue('');
      setResult(null);
      onChanged(`${p.name} key saved (${res.data.key_hint}).`);
    }
  };
  const test = async () => {
    setResult(null);
    const res = await action.run(() => unwrap(api.POST('/api/user/provider-keys/{provider}/test', { ...path, body: {} })));
    if (res) setResult(res as KeyCheck);
  };
  const remove = async () => {
    if (!window.confirm(`Remove your ${p.name} key? Your calls use the service’s ${p.name} setup again, if it has one.`)) return;
    const res = await action.run(() => unwrap(api.DELETE('/api/user/provider-keys/{provider}', path)));
    if (res) {
      setResult(null);
      onChanged(`${p.name} key removed.`);
    }
  };

  return (
    <section aria-labelledby={headingId} className="panel" data-testid={`provider-${p.id}`}>
      <h2 id={headingId}>{p.name}</h2>
      <p>
        <strong>Used for:</strong> {p.usedFor} {p.where}
      </p>
      {stored ? (
        <dl className="facts">
          <div><dt>Stored key</dt><dd className="mono">{stored.key_hint}</dd></div>
          <div><dt>Added</dt><dd><When utc={stored.created_at} /></dd></div>
          <div><dt>Last replaced</dt><dd><When utc={stored.updated_at} /></dd></div>
        </dl>
      ) : (
        <p>No key stored: your calls use the service’s own {p.name} setup, if it has one.</p>
      )}
      <ErrorBanner error={action.error} />
      {stored && (
        <div className="button-row">
          <button type="button" onClick={test} disabled={action.busy}>
            {action.busy ? 'Testing…' : `Test the ${p.name} key`}
          </button>
          <button type="button" className="danger" onClick={remove} disabled={action.busy}>
            Remove the {p.name} key
          </button>
        </div>
      )}
      <p role="status" aria-live="polite" data-testid={`test-result-${p.id}`} className={result ? (result.ok ? 'test-ok' : 'test-failed') : undefined}>
        {result && (
          <>
            <strong>{result.ok ? 'It works.' : 'It failed.'}</strong> {result.message} <span className="hint">(Asked {result.checked}; {result.latency_ms} ms.)</span>
          </>
        )}
      </p>
      <form onSubmit={submit} noValidate aria-label={`${stored ? 'Replace' : 'Add'} the ${p.name} key`}>
        <ErrorBanner error={save.error && !save.fieldErrors.api_key ? save.error : null} />
        <TextField
          label={stored ? `New ${p.name} key (replaces the stored one)` : `${p.name} key`}
          type="password"
          name={`${p.id}-key`}
          value={value}
          onChange={setValue}
          required
          errors={save.fieldErrors.api_key}
        />
        <button type="submit" disabled={save.busy || value.trim() === ''}>
          {stored ? `Replace the ${p.name} key` : `Save the ${p.name} key`}
        </button>
      </form>
    </section>
  );
}
