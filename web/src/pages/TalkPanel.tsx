/**
 * "Talk to this assistant": a browser call of type `web` from the assistant's page. Spoken
 * when the service has speech-to-text, else a typed conversation with the same engine,
 * labelled so. The live transcript shows both sides; the call then appears in the call list.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError, unwrap } from '../api';
import { useApi } from '../session';
import { ErrorBanner } from '../ui/common';
import { useLoad } from '../ui/hooks';
import { WebCall, type CallState } from '../voice/web-call';

interface Line {
  role: 'user' | 'assistant' | 'note';
  text: string;
}

export function TalkPanel({ assistantId }: { assistantId: number }) {
  const api = useApi();
  const caps = useLoad(() => unwrap(api.GET('/api/user/web-calls/capabilities')), []);
  const [call, setCall] = useState<WebCall | null>(null);
  const [state, setState] = useState<CallState | null>(null);
  const [lines, setLines] = useState<Line[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const [typed, setTyped] = useState('');
  const [audioMs, setAudioMs] = useState(0);
  const callRef = useRef<WebCall | null>(null);

  // Leaving the page ends the call.
  useEffect(() => () => callRef.current?.hangUp(), []);

  const start = async () => {
    setError(null);
    setLines([]);
    try {
      const started = await WebCall.start(
        window.location.origin,
        () => unwrap(api.POST('/api/user/web-calls', { body: { assistant_id: assistantId, mode: 'audio' } })),
        {
          state: (s, detail) => {
            setState(s);
            if (s === 'ended' && detail) setLines((l) => [...l, { role: 'note', text: detail }]);
          },
          line: (role, text) => setLines((l) => [...l, { role, text }]),
          interrupted: () => setLines((l) => [...l, { role: 'note', text: 'You interrupted the assistant.' }]),
          audio: setAudioMs,
        },
      );
      callRef.current = started;
      setCall(started);
    } catch (err) {
      setState(null);
      setError(err instanceof ApiError ? err : new ApiError(0, err instanceof Error ? err.message : String(err)));
    }
  };

  const send = (e: FormEvent) => {
    e.preventDefault();
    call?.say(typed);
    setTyped('');
  };

  const speech = caps.data?.speech ?? false;
  const offline = caps.data?.offline_llm ?? false;
  const live = state === 'connecting' || state === 'live';
  return (
    <section id="talk" aria-labelledby="talk-heading" className="panel" data-audio-ms={audioMs}>
      <h2 id="talk-heading">Talk to this assistant</h2>
      <p data-testid="talk-mode">
        {speech
          ? 'Speak with the assistant through your microphone; you can interrupt it at any time.'
          : 'Typed conversation: no speech-to-text provider is configured on this service, so you type and the assistant answers in text, with the same engine as a call.'}
      </p>
      {offline && (
        <p className="callout" data-testid="talk-offline">
          <strong>No LLM is connected:</strong> the replies come from the offline stand-in, which says a few fixed
          lines (a greeting, an answer, goodbye) and ends the call, so you can try the flow before adding a model.{' '}
          <Link to="/settings/keys">Add an LLM key</Link> (any OpenAI-compatible server: OpenAI, vLLM,
          Ollama, LiteLLM…) and your assistants think with it in every call; or an operator connects one for the whole
          service with <code>LLM_BASE_URL</code> (and <code>LLM_API_KEY</code>).
        </p>
      )}
      <ErrorBanner error={error} />
      <div className="actions">
        {!live ? (
          <button type="button" onClick={start} disabled={caps.data === undefined}>
            {speech ? 'Start a call' : 'Start a typed conversation'}
          </button>
        ) : (
          <button type="button" className="danger" onClick={() => call?.hangUp()}>
            Hang up
          </button>
        )}
        {state && <span role="status" aria-live="polite"> {state === 'connecting' ? 'Connecting…' : state === 'live' ? 'Connected' : 'Call ended'}</span>}
        {call && state === 'ended' && (
          <Link to={`/calls/${call.callId}`}> Open the call record</Link>
        )}
      </div>
      {lines.length > 0 && (
        <ol className="conversation" data-testid="live-transcript" aria-live="polite" aria-label="Live transcript">
          {lines.map((l, i) => (
            <li key={i} className={`turn ${l.role === 'assistant' ? 'turn-ai' : l.role === 'user' ? 'turn-customer' : 'turn-note'}`}>
              {l.role !== 'note' && <span className="speaker">{l.role === 'assistant' ? 'Assistant' : 'You'}</span>}
              <span className="text">{l.text}</span>
            </li>
          ))}
        </ol>
      )}
      {call?.mode === 'text' && state === 'live' && (
        <form onSubmit={send} className="talk-input">
          <label htmlFor="talk-message">Your message</label>
          <input id="talk-message" value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
          <button type="submit">Send</button>
        </form>
      )}
    </section>
  );
}
