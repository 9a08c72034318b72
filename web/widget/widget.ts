/**
 * The embeddable "call us" widget: `<script src="https://switchboard.example/widget.js"
 * data-key="wk_…" async></script>` on a customer's page puts a button there that calls the
 * key's assistant from the visitor's browser (spoken when the service has speech-to-text,
 * else typed). Authorised by the public widget key and the page's origin, never by a user's
 * API token. Everything lives in a shadow root, so the host page's styles do not leak in.
 */
import { WebCall, type StartedCall } from '../src/voice/web-call';

const script = document.currentScript as HTMLScriptElement | null;
const service = script ? new URL(script.src).origin : window.location.origin;
const key = script?.dataset.key ?? '';
const label = script?.dataset.label ?? 'Call us';

const STYLE = `
:host { all: initial; position: fixed; right: 1.25rem; bottom: 1.25rem; z-index: 2147483000; font: 15px/1.4 system-ui, sans-serif; color: #111; }
button { font: inherit; border: 0; border-radius: 999px; padding: 0.7rem 1.2rem; background: #1f5fd6; color: #fff; cursor: pointer; }
button:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
button.end { background: #b42318; }
.panel { background: #fff; border: 1px solid #d0d5dd; border-radius: 12px; padding: 0.75rem; margin-bottom: 0.5rem; width: 18rem; max-height: 20rem; overflow: auto; box-shadow: 0 6px 24px rgba(0,0,0,.15); }
.line { margin: 0.25rem 0; } .who { font-weight: 600; margin-right: 0.3rem; }
form { display: flex; gap: 0.3rem; margin-top: 0.5rem; } input { flex: 1; font: inherit; padding: 0.3rem; }
form button { border-radius: 6px; padding: 0.3rem 0.7rem; }
.status { color: #475467; font-size: 0.9em; margin: 0.25rem 0; }
`;

async function createCall(mode: 'audio' | 'text'): Promise<StartedCall> {
  const res = await fetch(`${service}/widget/calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key, mode }),
  });
  const body = (await res.json().catch(() => ({}))) as StartedCall & { message?: string };
  if (!res.ok) throw new Error(body.message ?? `The call could not be started (${res.status}).`);
  return body;
}

function mount(): void {
  const host = document.createElement('div');
  host.setAttribute('data-switchboard-widget', '');
  const root = host.attachShadow({ mode: 'open' });
  // The panel: the conversation (a live log) with the typed input below it, shown from the moment
  // the call starts, so a visitor sees where to type before the first reply arrives.
  root.innerHTML = `<style>${STYLE}</style><div class="panel" hidden><div class="log" role="log" aria-live="polite" aria-label="Conversation"></div></div><button type="button"></button>`;
  const panel = root.querySelector('.panel') as HTMLDivElement;
  const log = root.querySelector('.log') as HTMLDivElement;
  // The only button at mount (the typed input's Send button is added inside the panel later).
  const button = root.querySelector('button') as HTMLButtonElement;
  button.textContent = label;
  let call: WebCall | null = null;

  const say = (who: string, text: string, className = 'line') => {
    panel.hidden = false;
    const p = document.createElement('p');
    p.className = className;
    if (who) {
      const w = document.createElement('span');
      w.className = 'who';
      w.textContent = who;
      p.append(w);
    }
    p.append(document.createTextNode(text));
    log.append(p);
    panel.scrollTop = panel.scrollHeight;
  };

  const typedInput = () => {
    const form = document.createElement('form');
    form.innerHTML = '<input aria-label="Your message" autocomplete="off"><button type="submit">Send</button>';
    const input = form.querySelector('input') as HTMLInputElement;
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      call?.say(input.value);
      input.value = '';
      input.focus();
    });
    panel.append(form);
    input.focus();
  };

  button.addEventListener('click', async () => {
    if (call) {
      call.hangUp();
      return;
    }
    log.replaceChildren();
    panel.querySelector('form')?.remove();
    panel.hidden = false;
    say('', 'Connecting…', 'status');
    button.disabled = true;
    try {
      call = await WebCall.start(service, () => createCall('audio'), {
        state(state, detail) {
          if (state === 'live') {
            button.textContent = 'Hang up';
            button.className = 'end';
            button.disabled = false;
            log.querySelector('.status')?.remove();
            if (call?.mode === 'text') typedInput();
          }
          if (state === 'ended') {
            if (detail) say('', detail, 'status');
            panel.querySelector('form')?.remove();
            call = null;
            button.textContent = label;
            button.className = '';
            button.disabled = false;
          }
        },
        line: (role, text) => say(role === 'assistant' ? 'Assistant:' : 'You:', text),
      });
    } catch (err) {
      say('', err instanceof Error ? err.message : String(err), 'status');
      call = null;
      button.disabled = false;
    }
  });
  document.body.append(host);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mount);
else mount();
