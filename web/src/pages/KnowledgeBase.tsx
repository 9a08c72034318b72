import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { BackLink, Empty, ErrorBanner, Loading, PageTitle, StatusBadge, Table } from '../ui/common';
import { Group, NumberField, Select, TextField } from '../ui/fields';
import { useInterval, useLoad, useSubmit } from '../ui/hooks';

type Kind = 'text' | 'website' | 'file';

/**
 * One knowledge base: its documents (status refreshed while any is processing, passage counts),
 * adding a text, a website or a file (PDF, TXT, DOCX), and a search box that asks what a call asks.
 */
export default function KnowledgeBase() {
  const { id = '' } = useParams();
  const api = useApi();
  const path = { params: { path: { id } } };
  const base = useLoad(async () => {
    const [kb, docs] = await Promise.all([
      unwrap(api.GET('/api/user/knowledgebases/{id}', path)),
      unwrap(api.GET('/api/user/knowledgebases/{id}/documents', path)),
    ]);
    return { kb: kb.data, docs: docs.data };
  }, [id]);
  const add = useSubmit();
  const del = useSubmit();
  const find = useSubmit();
  const [kind, setKind] = useState<Kind>('text');
  const [name, setName] = useState('');
  const [content, setContent] = useState('');
  const [url, setUrl] = useState('');
  const [limit, setLimit] = useState('10');
  const [file, setFile] = useState<File | null>(null);
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<{ chunk_id: number; document_name: string; heading: string; snippet: string; source: string | null }[] | null>(null);
  useInterval(base.reload, base.data?.docs.some((d) => d.status === 'processing') ? 1500 : null);

  const onAdd = async (e: FormEvent) => {
    e.preventDefault();
    const named = name.trim() === '' ? {} : { name: name.trim() };
    const done = await add.run(async () => {
      if (kind === 'text') return unwrap(api.POST('/api/user/knowledgebases/{id}/documents', { ...path, body: { type: 'text', content, ...named } }));
      if (kind === 'website') {
        return unwrap(api.POST('/api/user/knowledgebases/{id}/documents', { ...path, body: { type: 'website', url, relative_links_limit: Number(limit), ...named } }));
      }
      const form = new FormData();
      if (file) form.append('file', file);
      if (named.name) form.append('name', named.name);
      // multipart/form-data: the browser sets the boundary; the JSON body type is only the client's typing.
      return unwrap(api.POST('/api/user/knowledgebases/{id}/documents', { ...path, body: {} as never, bodySerializer: () => form }));
    });
    if (done) {
      setName('');
      setContent('');
      setUrl('');
      setFile(null);
      base.reload();
    }
  };
  const remove = async (docId: number, docName: string) => {
    if (!window.confirm(`Delete the document "${docName}"?`)) return;
    await del.run(() => unwrap(api.DELETE('/api/user/knowledgebases/{id}/documents/{documentId}', { params: { path: { id, documentId: String(docId) } } })));
    base.reload();
  };
  const onSearch = async (e: FormEvent) => {
    e.preventDefault();
    const found = await find.run(() => unwrap(api.GET('/api/user/knowledgebases/{id}/search', { params: { path: { id }, query: { q: query, limit: '5' } } })));
    if (found) setHits(found.data);
  };

  if (base.error && !base.data) return <ErrorBanner error={base.error} />;
  if (!base.data) return <Loading what="the knowledge base" />;
  const { kb, docs } = base.data;
  return (
    <>
      <BackLink to="/knowledge">Knowledge bases</BackLink>
      <PageTitle>{kb.name}</PageTitle>
      <p>
        Status: <StatusBadge status={kb.status} /> · {kb.documents_count} documents · {kb.chunks_count} passages
      </p>
      <ErrorBanner error={del.error} />
      {docs.length === 0 && <Empty>No documents yet.</Empty>}
      {docs.length > 0 && (
        <Table caption="Documents" columns={['Name', 'Type', 'Status', 'Passages', 'Actions']}>
          {docs.map((d) => (
            <tr key={d.id}>
              <td>
                {d.name}
                {d.url && <div className="hint mono">{d.url}</div>}
              </td>
              <td>{d.type}</td>
              <td>
                <StatusBadge status={d.status} />
                {d.error && <div className="field-error">{d.error}</div>}
              </td>
              <td>{d.chunks_count}</td>
              <td>
                <button type="button" className="danger" onClick={() => remove(d.id, d.name)} aria-label={`Delete ${d.name}`}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}

      <form onSubmit={onAdd} noValidate>
        <Group legend="Add a document">
          <ErrorBanner error={add.error} />
          <Select
            label="Kind"
            value={kind}
            onChange={(v) => setKind(v as Kind)}
            options={[
              { value: 'text', label: 'Text' },
              { value: 'website', label: 'Website' },
              { value: 'file', label: 'File (PDF, TXT, DOCX)' },
            ]}
          />
          <TextField label="Document name" value={name} onChange={setName} errors={add.fieldErrors.name} hint="Optional: taken from the file, the website or the text otherwise." />
          {kind === 'text' && <TextField label="Text" multiline rows={6} value={content} onChange={setContent} errors={add.fieldErrors.content} />}
          {kind === 'website' && (
            <>
              <TextField label="Website address" type="url" value={url} onChange={setUrl} errors={add.fieldErrors.url} placeholder="https://example.com/" />
              <NumberField label="Pages to follow on the site" min={1} max={50} step={1} value={limit} onChange={setLimit} errors={add.fieldErrors.relative_links_limit} hint="1–50 links on the same site." />
            </>
          )}
          {kind === 'file' && (
            <div className="field">
              <label htmlFor="kb-file">File</label>
              <input id="kb-file" type="file" accept=".pdf,.txt,.docx" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
            </div>
          )}
          <button type="submit" disabled={add.busy}>
            Add document
          </button>
        </Group>
      </form>

      <form onSubmit={onSearch} role="search" aria-label="Try a question">
        <Group legend="Try a question">
          <ErrorBanner error={find.error} />
          <TextField label="Question" type="search" value={query} onChange={setQuery} errors={find.fieldErrors.q} />
          <button type="submit" disabled={find.busy}>
            Search
          </button>
        </Group>
      </form>
      {hits && hits.length === 0 && <Empty>Nothing found.</Empty>}
      {hits && hits.length > 0 && (
        <ol className="search-hits" aria-label="Passages found">
          {hits.map((h) => (
            <li key={h.chunk_id}>
              <strong>{h.heading || h.document_name}</strong> <span className="hint">({h.document_name})</span>
              <p>{h.snippet}</p>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
