import { Link } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { Empty, ErrorBanner, Loading, PageTitle, Table } from '../ui/common';
import { useLoad, useSubmit } from '../ui/hooks';

export default function Tools() {
  const api = useApi();
  const list = useLoad(() => unwrap(api.GET('/api/user/tools')), []);
  const del = useSubmit();
  const remove = async (id: number, name: string) => {
    if (!window.confirm(`Delete the tool "${name}"? It is detached from every assistant.`)) return;
    await del.run(() => unwrap(api.DELETE('/api/user/tools/{id}', { params: { path: { id: String(id) } } })));
    list.reload();
  };
  return (
    <>
      <PageTitle actions={<Link className="button" to="/tools/new">New tool</Link>}>Mid-call tools</PageTitle>
      <p>HTTP requests an assistant may make during a call. Attach them to assistants on the assistant's page.</p>
      <ErrorBanner error={list.error ?? del.error} />
      {list.loading && !list.data && <Loading what="tools" />}
      {list.data && list.data.length === 0 && <Empty>No tools yet.</Empty>}
      {list.data && list.data.length > 0 && (
        <Table caption="Your mid-call tools" columns={['Name', 'Method', 'Endpoint', 'Timeout', 'Actions']}>
            {list.data.map((t) => (
              <tr key={t.id}>
                <td>
                  <Link to={`/tools/${t.id}`}>{t.name}</Link>
                </td>
                <td>{t.method}</td>
                <td className="mono">{t.endpoint}</td>
                <td>{t.timeout} s</td>
                <td>
                  <button type="button" className="danger" onClick={() => remove(t.id, t.name)} aria-label={`Delete ${t.name}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
        </Table>
      )}
    </>
  );
}
