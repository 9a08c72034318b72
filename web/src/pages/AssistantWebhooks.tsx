import { useState } from 'react';
import { unwrap } from '../api';
import { useApi } from '../session';
import { ErrorBanner, Notice } from '../ui/common';
import { TextField } from '../ui/fields';
import { useSubmit } from '../ui/hooks';

/** The webhook switches of spec 3.5: disable the post-call webhook, enable/disable the inbound one. */
export function WebhookSwitches({ assistant, onChange }: { assistant: { id: number; is_webhook_active: boolean; webhook_url: string | null; inbound_webhook_url: string | null; type: string }; onChange(): void }) {
  const api = useApi();
  const submit = useSubmit();
  const [inboundUrl, setInboundUrl] = useState(assistant.inbound_webhook_url ?? '');
  const [done, setDone] = useState<string | null>(null);
  const act = async (fn: () => Promise<{ message: string }>) => {
    setDone(null);
    const res = await submit.run(fn);
    if (res) {
      setDone(res.message);
      onChange();
    }
  };
  const body = { assistant_id: assistant.id };
  return (
    <section className="panel" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhook switches</h2>
      <p>
        Post-call webhook: <strong>{assistant.is_webhook_active ? `on, to ${assistant.webhook_url}` : 'off'}</strong>
      </p>
      <button type="button" disabled={!assistant.is_webhook_active || submit.busy} onClick={() => act(() => unwrap(api.POST('/api/user/assistants/disable-webhook', { body })))}>
        Disable the post-call webhook
      </button>
      <p>
        Inbound-call webhook: <strong>{assistant.inbound_webhook_url ? `on, to ${assistant.inbound_webhook_url}` : 'off'}</strong>
      </p>
      <TextField label="Inbound webhook URL" type="url" value={inboundUrl} onChange={setInboundUrl} errors={submit.fieldErrors.webhook_url} />
      <div className="button-row">
        <button type="button" disabled={submit.busy} onClick={() => act(() => unwrap(api.POST('/api/user/assistants/enable-inbound-webhook', { body: { ...body, webhook_url: inboundUrl } })))}>
          Enable the inbound webhook
        </button>
        <button type="button" disabled={!assistant.inbound_webhook_url || submit.busy} onClick={() => act(() => unwrap(api.POST('/api/user/assistants/disable-inbound-webhook', { body })))}>
          Disable the inbound webhook
        </button>
      </div>
      <ErrorBanner error={submit.error} />
      {done && <Notice>{done}</Notice>}
    </section>
  );
}
