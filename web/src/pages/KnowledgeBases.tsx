import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { Empty, ErrorBanner, Loading, PageTitle, StatusBadge, Table } from '../ui/common';
import { Group, TextField } from '../ui/fields';
import { useInterval, useLoad, useSubmit } from '../ui/hooks';

/** The user's knowledge bases: create one, open it, delete it (its assistants lose it). */
export default function KnowledgeBases() {
  const api = useApi();
  const list = useLoad(async () => (await unwrap(api.GET('/api/user/knowledgebases'))).data, []);
  const create = useSubmit();
  const del = useSubmit();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  // A base whose documents are still processing changes status on its own: look again every 2 s.
  useInterval(list.reload, list.data?.some((kb) => kb.status === 'processing') ? 2000 : null);

  const onCreate = async (e: FormEvent) => {
    e.preventDefault();
    const done = await create.run(() => unwrap(api.POST('/api/user/knowledgebases', { body: { name, description: description.trim() === '' ? null : description } })));
    if (done) {
      setName('');
      setDescription('');
      list.reload();
    }
  };
  const remove = async (id: number, kbName: string) => {
    if (!window.confirm(`Delete the knowledge base "${kbName}" with its documents? Assistants using it lose it.`)) return;
    await del.run(() => unwrap(api.DELETE('/api/user/knowledgebases/{id}', { params: { path: { id: String(id) } } })));
    list.reload();
  };
  return (
    <>
      <PageTitle>Knowledge bases</PageTitle>
      <p>Documents and websites an assistant answers from. Choose a base in the assistant's editor.</p>
      <ErrorBanner error={list.error ?? del.error} />
      {list.loading && !list.data && <Loading what="knowledge bases" />}
      {list.data && list.data.length === 0 && <Empty>No knowledge bases yet.</Empty>}
      {list.data && list.data.length > 0 && (
        <Table caption="Your knowledge bases" columns={['Name', 'Status', 'Documents', 'Passages', 'Actions']}>
          {list.data.map((kb) => (
            <tr key={kb.id}>
              <td>
                <Link to={`/knowledge/${kb.id}`}>{kb.name}</Link>
                {kb.description && <div className="hint">{kb.description}</div>}
              </td>
              <td>
                <StatusBadge status={kb.status} />
                {kb.error && <div className="hint">{kb.error}</div>}
              </td>
              <td>{kb.documents_count}</td>
              <td>{kb.chunks_count}</td>
              <td>
                <button type="button" className="danger" onClick={() => remove(kb.id, kb.name)} aria-label={`Delete ${kb.name}`}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <form onSubmit={onCreate} noValidate>
        <Group legend="New knowledge base">
          <ErrorBanner error={create.error} />
          <TextField label="Name" value={name} onChange={setName} required errors={create.fieldErrors.name} />
          <TextField label="Description" value={description} onChange={setDescription} errors={create.fieldErrors.description} />
          <button type="submit" disabled={create.busy}>
            Create knowledge base
          </button>
        </Group>
      </form>
    </>
  );
}
