import { useState } from 'react';
import { Link } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { Empty, ErrorBanner, Loading, PageTitle, Pager, StatusBadge, Table } from '../ui/common';
import { useLoad, useSubmit } from '../ui/hooks';

export default function Assistants() {
  const api = useApi();
  const [page, setPage] = useState(1);
  const list = useLoad(() => unwrap(api.GET('/api/user/assistants/get', { params: { query: { page: String(page), per_page: '25' } } })), [page]);
  const del = useSubmit();

  const remove = async (id: number, name: string) => {
    if (!window.confirm(`Delete the assistant "${name}"? Its calls stay.`)) return;
    await del.run(() => unwrap(api.DELETE('/api/user/assistant/{id}', { params: { path: { id: String(id) } } })));
    list.reload();
  };

  return (
    <>
      <PageTitle actions={<Link className="button" to="/assistants/new">New assistant</Link>}>Assistants</PageTitle>
      <ErrorBanner error={list.error ?? del.error} />
      {list.loading && !list.data && <Loading what="assistants" />}
      {list.data && list.data.data.length === 0 && <Empty>No assistants yet. Create one to place or take calls.</Empty>}
      {list.data && list.data.data.length > 0 && (
        <>
          <Table caption="Your assistants" columns={['Name', 'Direction', 'Status', 'Language', 'Webhook', 'Actions']}>
              {list.data.data.map((a) => (
                <tr key={a.id}>
                  <td>
                    <Link to={`/assistants/${a.id}`}>{a.name}</Link>
                  </td>
                  <td>{a.type}</td>
                  <td>
                    <StatusBadge status={a.status} />
                  </td>
                  <td>{a.language ?? '—'}</td>
                  <td>{a.is_webhook_active ? 'on' : 'off'}</td>
                  <td className="row-actions">
                    <Link to={`/assistants/${a.id}#talk`} aria-label={`Talk to ${a.name}`}>
                      Talk to this assistant
                    </Link>
                    <button type="button" className="danger" onClick={() => remove(a.id, a.name)} aria-label={`Delete ${a.name}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
          </Table>
          <Pager label="Assistant list" page={list.data.current_page} lastPage={list.data.last_page} total={list.data.total} onPage={setPage} />
        </>
      )}
    </>
  );
}
