import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { BackLink, ErrorBanner, Loading, Notice, PageTitle } from '../ui/common';
import { Group, NumberField, Select, TextField } from '../ui/fields';
import { useLoad, useSubmit } from '../ui/hooks';

interface ToolForm {
  name: string;
  description: string;
  endpoint: string;
  method: string;
  timeout: string;
  headers: { name: string; value: string }[];
  schema: { name: string; type: string; description: string }[];
}

const EMPTY: ToolForm = { name: '', description: '', endpoint: 'https://', method: 'POST', timeout: '10', headers: [], schema: [] };

const bodyOf = (f: ToolForm) => ({
  name: f.name,
  description: f.description,
  endpoint: f.endpoint,
  method: f.method,
  timeout: f.timeout.trim() !== '' && Number.isFinite(Number(f.timeout)) ? Number(f.timeout) : f.timeout,
  headers: f.headers,
  schema: f.schema,
});

export default function ToolEdit() {
  const { id } = useParams();
  const isNew = id === undefined;
  const api = useApi();
  const navigate = useNavigate();
  const stored = useLoad(async () => (isNew ? null : unwrap(api.GET('/api/user/tools/{id}', { params: { path: { id: String(id) } } }))), [id]);
  const [form, setForm] = useState<ToolForm | null>(isNew ? EMPTY : null);
  const [saved, setSaved] = useState<string | null>(null);
  const submit = useSubmit();

  useEffect(() => {
    if (stored.data) {
      const t = stored.data;
      setForm({ name: t.name, description: t.description, endpoint: t.endpoint, method: t.method, timeout: String(t.timeout), headers: t.headers, schema: t.schema });
    }
  }, [stored.data]);

  if (stored.error) return <ErrorBanner error={stored.error} />;
  if (!form) return <Loading what="the tool" />;
  const errors = submit.fieldErrors;
  const set = <K extends keyof ToolForm>(k: K) => (v: ToolForm[K]) => setForm({ ...form, [k]: v });

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSaved(null);
    if (isNew) {
      const res = await submit.run(() => unwrap(api.POST('/api/user/tools', { body: bodyOf(form) as never })));
      if (res) navigate(`/tools/${res.data.id}`, { replace: true });
    } else {
      const res = await submit.run(() => unwrap(api.PUT('/api/user/tools/{id}', { params: { path: { id: String(id) } }, body: bodyOf(form) as never })));
      if (res) setSaved(res.message);
    }
  };

  return (
    <>
      <BackLink to="/tools">All tools</BackLink>
      <PageTitle>{isNew ? 'New mid-call tool' : `Tool: ${stored.data?.name ?? ''}`}</PageTitle>
      <form onSubmit={onSubmit} noValidate>
        <Group legend="Request">
          <TextField label="Name" value={form.name} onChange={set('name')} errors={errors.name} hint="Lowercase letters and underscores, starting with a letter." />
          <TextField label="Description" multiline rows={2} value={form.description} onChange={set('description')} errors={errors.description} hint="When and how the assistant should use the tool." />
          <TextField label="Endpoint URL" type="url" value={form.endpoint} onChange={set('endpoint')} errors={errors.endpoint} />
          <Select label="Method" value={form.method} onChange={set('method')} errors={errors.method} options={['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => ({ value: m, label: m }))} />
          <NumberField label="Timeout, seconds (1–30)" value={form.timeout} onChange={set('timeout')} errors={errors.timeout} />
        </Group>
        <Group legend="Headers">
          {form.headers.map((h, i) => (
            <div className="row-fields" key={i}>
              <TextField label={`Header ${i + 1} name`} value={h.name} onChange={(v) => set('headers')(form.headers.map((x, j) => (j === i ? { ...x, name: v } : x)))} errors={errors[`headers.${i}.name`]} />
              <TextField label={`Header ${i + 1} value`} value={h.value} onChange={(v) => set('headers')(form.headers.map((x, j) => (j === i ? { ...x, value: v } : x)))} errors={errors[`headers.${i}.value`]} />
              <button type="button" className="secondary" onClick={() => set('headers')(form.headers.filter((_, j) => j !== i))}>
                Remove header {i + 1}
              </button>
            </div>
          ))}
          <button type="button" className="secondary" onClick={() => set('headers')([...form.headers, { name: '', value: '' }])}>
            Add a header
          </button>
        </Group>
        <Group legend="Parameters the assistant extracts">
          {form.schema.map((p, i) => (
            <div className="row-fields" key={i}>
              <TextField label={`Parameter ${i + 1} name`} value={p.name} onChange={(v) => set('schema')(form.schema.map((x, j) => (j === i ? { ...x, name: v } : x)))} errors={errors[`schema.${i}.name`]} />
              <Select
                label={`Parameter ${i + 1} type`}
                value={p.type}
                onChange={(v) => set('schema')(form.schema.map((x, j) => (j === i ? { ...x, type: v } : x)))}
                errors={errors[`schema.${i}.type`]}
                options={['string', 'number', 'boolean'].map((v) => ({ value: v, label: v }))}
              />
              <TextField
                label={`Parameter ${i + 1} description`}
                value={p.description}
                onChange={(v) => set('schema')(form.schema.map((x, j) => (j === i ? { ...x, description: v } : x)))}
                errors={errors[`schema.${i}.description`]}
              />
              <button type="button" className="secondary" onClick={() => set('schema')(form.schema.filter((_, j) => j !== i))}>
                Remove parameter {i + 1}
              </button>
            </div>
          ))}
          <button type="button" className="secondary" onClick={() => set('schema')([...form.schema, { name: '', type: 'string', description: '' }])}>
            Add a parameter
          </button>
        </Group>
        <ErrorBanner error={submit.error} />
        {saved && <Notice>{saved}</Notice>}
        <button type="submit" disabled={submit.busy}>
          {submit.busy ? 'Saving…' : isNew ? 'Create tool' : 'Save changes'}
        </button>
      </form>
      {!isNew && stored.data && <TestRequest toolId={stored.data.id} params={stored.data.schema} />}
    </>
  );
}

/** Sends one request to the tool's endpoint through the service, as a call would, and shows the answer. */
function TestRequest({ toolId, params }: { toolId: number; params: { name: string; type: string }[] }) {
  const api = useApi();
  const [values, setValues] = useState<Record<string, string>>({});
  const submit = useSubmit();
  const [answer, setAnswer] = useState<{ ok: boolean; status: number | null; duration_ms: number; result: Record<string, unknown> } | null>(null);
  const send = async () => {
    const args: Record<string, unknown> = {};
    for (const p of params) {
      const raw = values[p.name] ?? '';
      args[p.name] = p.type === 'number' && raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : p.type === 'boolean' ? raw === 'true' : raw;
    }
    const res = await submit.run(() => unwrap(api.POST('/api/user/tools/{id}/test', { params: { path: { id: String(toolId) } }, body: { arguments: args } })));
    if (res) setAnswer(res.data);
  };
  return (
    <section className="panel" aria-labelledby="test-heading">
      <h2 id="test-heading">Send a test request</h2>
      <p>The service sends the request as it would during a call (same headers, timeout and address checks) and shows the answer.</p>
      {params.map((p) => (
        <TextField key={p.name} label={`${p.name} (${p.type})`} value={values[p.name] ?? ''} onChange={(v) => setValues({ ...values, [p.name]: v })} />
      ))}
      <button type="button" onClick={send} disabled={submit.busy}>
        {submit.busy ? 'Sending…' : 'Send a test request'}
      </button>
      <ErrorBanner error={submit.error} />
      {answer && (
        <div className="test-answer" role="status">
          <p>
            {answer.ok ? 'The endpoint answered' : 'The request did not succeed'}
            {answer.status !== null && <> with status <strong>{answer.status}</strong></>} after {answer.duration_ms} ms.
          </p>
          <pre aria-label="Endpoint answer">{JSON.stringify(answer.result, null, 2)}</pre>
        </div>
      )}
    </section>
  );
}
