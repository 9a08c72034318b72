/**
 * The assistant's versions: every saved change, who made it and what it changed; a version's
 * changes field by field against the one before it, and "Restore", which saves that version
 * again as the newest one (nothing is rewritten).
 */
import { useState } from 'react';
import { unwrap } from '../api';
import { useApi } from '../session';
import { Empty, ErrorBanner, Notice, Pager, Table } from '../ui/common';
import { useLoad, useSubmit } from '../ui/hooks';

const ACTIONS: Record<string, string> = {
  create: 'Created',
  update: 'Edited',
  webhook: 'Webhook switched',
  restore: 'Restored',
  baseline: 'Before the first recorded change',
};

/** A field's value as a person reads it: text as it is, everything else as compact JSON. */
function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const when = (iso: string) => {
  const d = new Date(iso);
  return { text: d.toLocaleString(), utc: d.toISOString() };
};

export function AssistantVersions({ assistantId, onRestored }: { assistantId: number; onRestored(): void }) {
  const api = useApi();
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<number | null>(null);
  const [restored, setRestored] = useState<string | null>(null);
  const id = String(assistantId);
  const list = useLoad(
    () => unwrap(api.GET('/api/user/assistants/{id}/versions', { params: { path: { id }, query: { page: String(page), per_page: '10' } } })),
    [assistantId, page],
  );
  const detail = useLoad(
    async () => (open === null ? null : (await unwrap(api.GET('/api/user/assistants/{id}/versions/{number}', { params: { path: { id, number: String(open) } } }))).data),
    [assistantId, open],
  );
  const submit = useSubmit();

  const restore = async (number: number) => {
    if (!window.confirm(`Restore version ${number}? Its settings become the assistant's current ones (saved as a new version).`)) return;
    setRestored(null);
    const res = await submit.run(() => unwrap(api.POST('/api/user/assistants/{id}/versions/{number}/restore', { params: { path: { id, number: String(number) } } })));
    if (res) {
      setRestored(res.message);
      setOpen(null);
      setPage(1);
      list.reload();
      onRestored();
    }
  };

  return (
    <section aria-labelledby="versions-heading" className="panel">
      <h2 id="versions-heading">Versions</h2>
      <p>Every saved change is kept. Open one to see what it changed; restore it to undo later changes.</p>
      <ErrorBanner error={list.error ?? submit.error} />
      {restored && <Notice>{restored}</Notice>}
      {list.data && list.data.data.length === 0 && <Empty>No versions recorded yet: the first change you save starts the history.</Empty>}
      {list.data && list.data.data.length > 0 && (
        <>
          <Table caption="Versions of this assistant" columns={['Version', 'Saved', 'By', 'What changed', '']}>
            {list.data.data.map((v) => {
              const t = when(v.created_at);
              return (
                <tr key={v.number}>
                  <td>
                    {v.number}
                    {v.restored_from !== null && <span className="hint"> (from {v.restored_from})</span>}
                  </td>
                  <td>
                    <time dateTime={t.utc} title={`${t.utc} (UTC)`}>{t.text}</time>
                  </td>
                  <td>
                    {v.author} <span className="hint">({v.via})</span>
                  </td>
                  <td>
                    {ACTIONS[v.action] ?? v.action}
                    {v.changed_fields.length > 0 && `: ${v.changed_fields.join(', ')}`}
                  </td>
                  <td>
                    <button type="button" className="secondary" aria-expanded={open === v.number} onClick={() => setOpen(open === v.number ? null : v.number)}>
                      {open === v.number ? 'Hide' : 'Show'} version {v.number}
                    </button>{' '}
                    {v.number !== list.data!.data[0].number || page !== 1 ? (
                      <button type="button" onClick={() => restore(v.number)} disabled={submit.busy}>
                        Restore version {v.number}
                      </button>
                    ) : (
                      <span className="hint">current</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </Table>
          <Pager page={page} lastPage={list.data.last_page} total={list.data.total} onPage={setPage} label="Versions" />
        </>
      )}
      {open !== null && detail.data && (
        <div aria-live="polite">
          <h3>
            Version {detail.data.number}
            {detail.data.compared_to !== null ? ` compared with version ${detail.data.compared_to}` : ''}
          </h3>
          {detail.data.changes.length === 0 ? (
            <Empty>{detail.data.compared_to === null ? 'The first version: nothing to compare it with.' : 'No setting differs.'}</Empty>
          ) : (
            <Table caption={`Changes in version ${detail.data.number}`} columns={['Setting', 'Before', 'After']}>
              {detail.data.changes.map((c) => (
                <tr key={c.field}>
                  <th scope="row">{c.field}</th>
                  <td className="diff-before">{shown(c.before)}</td>
                  <td className="diff-after">{shown(c.after)}</td>
                </tr>
              ))}
            </Table>
          )}
        </div>
      )}
    </section>
  );
}
