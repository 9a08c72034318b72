import { Link } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { Empty, ErrorBanner, Loading, PageTitle } from '../ui/common';
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
        <table>
          <caption className="visually-hidden">Your mid-call tools</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Method</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Timeout</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
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
          </tbody>
        </table>
      )}
    </>
  );
}
