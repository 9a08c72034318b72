/**
 * The assistant's widget keys: a "call us" button for the owner's own website. Each key is
 * public (it sits in the page's script tag) and works only from its allowed origins.
 */
import { useState, type FormEvent } from 'react';
import { unwrap } from '../api';
import { useApi } from '../session';
import { Empty, ErrorBanner, Table } from '../ui/common';
import { TextField } from '../ui/fields';
import { useLoad, useSubmit } from '../ui/hooks';

export function WidgetKeys({ assistantId }: { assistantId: number }) {
  const api = useApi();
  const path = { params: { path: { id: String(assistantId) } } };
  const keys = useLoad(() => unwrap(api.GET('/api/user/assistants/{id}/widget-keys', path)), [assistantId]);
  const [origins, setOrigins] = useState('');
  const submit = useSubmit();

  const create = async (e: FormEvent) => {
    e.preventDefault();
    const allowed = origins.split(/[\s,]+/).filter(Boolean);
    const res = await submit.run(() => unwrap(api.POST('/api/user/assistants/{id}/widget-keys', { ...path, body: { allowed_origins: allowed } })));
    if (res) {
      setOrigins('');
      keys.reload();
    }
  };
  const revoke = async (id: number) => {
    if (await submit.run(() => unwrap(api.DELETE('/api/user/widget-keys/{id}', { params: { path: { id: String(id) } } })))) keys.reload();
  };
  const originErrors = Object.entries(submit.fieldErrors)
    .filter(([k]) => k.startsWith('allowed_origins'))
    .flatMap(([, v]) => v);

  return (
    <section aria-labelledby="widget-heading" className="panel">
      <h2 id="widget-heading">Website widget</h2>
      <p>Put a “call us” button for this assistant on your own website. Calls from the widget count against your parallel-call limit and appear in your call list.</p>
      <ErrorBanner error={submit.error && !originErrors.length ? submit.error : null} />
      {keys.data && keys.data.data.length === 0 && <Empty>No widget keys yet.</Empty>}
      {keys.data && keys.data.data.length > 0 && (
        <Table caption="Widget keys" columns={['Snippet for your page', 'Allowed origins', '']}>
          {keys.data.data.map((k) => (
            <tr key={k.id}>
              <td>
                <code>{`<script src="${window.location.origin}/widget.js" data-key="${k.key}" async></script>`}</code>
              </td>
              <td>{k.allowed_origins.join(', ')}</td>
              <td>
                <button type="button" className="danger" onClick={() => revoke(k.id)} aria-label={`Revoke widget key ending ${k.key.slice(-6)}`}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <form onSubmit={create} noValidate>
        <TextField
          label="Allowed origins (space or comma separated)"
          value={origins}
          onChange={setOrigins}
          placeholder="https://www.example.com"
          errors={originErrors}
        />
        <button type="submit" disabled={submit.busy}>
          Create a widget key
        </button>
      </form>
    </section>
  );
}
