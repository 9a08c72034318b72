/**
 * Provider keys: the user's own keys for the language model (an OpenAI-compatible server at a
 * base URL) and the speech vendors, used for their calls instead of the service's. Each says
 * what its key is used for, shows the stored key's last characters (and the LLM's base URL) and
 * dates, takes a new key, removes it, and tries it with one real request.
 */
import { useState, type FormEvent } from 'react';
import { unwrap } from '../api';
import { useApi } from '../session';
import { ErrorBanner, Loading, Notice, PageTitle } from '../ui/common';
import { TextField } from '../ui/fields';
import { When } from '../ui/format';
import { useLoad, useSubmit } from '../ui/hooks';

type Provider = 'llm' | 'openai' | 'deepgram' | 'elevenlabs';
type StoredKey = { provider: Provider; key_hint: string; base_url: string | null; created_at: string; updated_at: string };
type KeyCheck = { ok: boolean; message: string; checked: string; status?: number; latency_ms: number; key_hint: string };

const PROVIDERS: { id: Provider; name: string; title?: string; usedFor: string; where: string }[] = [
  {
    id: 'llm',
    name: 'LLM',
    title: 'LLM (OpenAI-compatible)',
    usedFor: 'The language model your assistants think with: every call, browser call and test run, and the summaries and evaluations after a call.',
    where: 'Any server that speaks OpenAI’s chat-completions protocol (OpenAI, vLLM, Ollama, LM Studio, LiteLLM…), at its base URL with the version, e.g. https://api.openai.com/v1. Leave the base URL empty for OpenAI.',
  },
  {
    id: 'openai',
    name: 'OpenAI',
    usedFor: 'Speech-to-text, text-to-speech (voices whose provider is OpenAI) and speech-to-speech (assistants in multimodal mode).',
    where: "Used on OpenAI's own servers; where the service sends speech to another server, that server keeps its own key. Not the language model: for that, add an LLM key above.",
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
        Your own keys for the language model and the speech vendors. Your calls use them instead of the service’s. Keys are stored encrypted and shown only by their last four
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
  const [baseUrl, setBaseUrl] = useState(stored?.base_url ?? '');
  const isLlm = p.id === 'llm';
  const title = p.title ?? p.name;
  const [result, setResult] = useState<KeyCheck | null>(null);
  const save = useSubmit();
  const action = useSubmit();
  const headingId = `${p.id}-heading`;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body = { api_key: value.trim(), ...(isLlm && baseUrl.trim() !== '' ? { base_url: baseUrl.trim() } : {}) };
    const res = await save.run(() => unwrap(api.PUT('/api/user/provider-keys/{provider}', { ...path, body })));
    if (res) {
      setValue('');
      setBaseUrl(res.data.base_url ?? '');
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
      <h2 id={headingId}>{title}</h2>
      <p>
        <strong>Used for:</strong> {p.usedFor} {p.where}
      </p>
      {stored ? (
        <dl className="facts">
          {isLlm && stored.base_url && <div><dt>Base URL</dt><dd className="mono">{stored.base_url}</dd></div>}
          <div><dt>Stored key</dt><dd className="mono">{stored.key_hint}</dd></div>
          <div><dt>Added</dt><dd><When utc={stored.created_at} /></dd></div>
          <div><dt>Last replaced</dt><dd><When utc={stored.updated_at} /></dd></div>
        </dl>
      ) : (
        <p>{isLlm ? 'No key stored: your assistants think with the service’s own LLM, or, if it has none, the offline stand-in (a few fixed lines).' : `No key stored: your calls use the service’s own ${p.name} setup, if it has one.`}</p>
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
        <ErrorBanner error={save.error && !save.fieldErrors.api_key && !save.fieldErrors.base_url ? save.error : null} />
        {isLlm && (
          <TextField
            label="Base URL"
            hint="With the version, e.g. http://my-server:8000/v1. Empty: OpenAI."
            type="url"
            name="llm-base-url"
            value={baseUrl}
            onChange={setBaseUrl}
            placeholder="https://api.openai.com/v1"
            errors={save.fieldErrors.base_url}
          />
        )}
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
