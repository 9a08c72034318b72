import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { unwrap, type paths } from '../api';
import { useApi } from '../session';
import { Empty, ErrorBanner, Loading, Notice, PageTitle, Pager, StatusBadge, Table } from '../ui/common';
import { Select, TextField } from '../ui/fields';
import { When } from '../ui/format';
import { useInterval, useLoad, useSubmit } from '../ui/hooks';

type Lead = paths['/api/user/campaign/{id}/leads']['get']['responses'][200]['content']['application/json']['data'][number];

/** The variables as an object, or the text itself when it is not JSON (the service then says why). */
function parseVariables(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export default function Leads() {
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const campaigns = useLoad(() => unwrap(api.GET('/api/user/campaigns')), []);
  const campaignId = Number(params.get('campaign') ?? campaigns.data?.[0]?.id ?? 0);
  const [page, setPage] = useState(1);
  const leads = useLoad(
    async () => (campaignId ? unwrap(api.GET('/api/user/campaign/{id}/leads', { params: { path: { id: String(campaignId) }, query: { page: String(page), per_page: '25' } } })) : null),
    [campaignId, page],
  );
  const [editing, setEditing] = useState<number | null>(null);
  const del = useSubmit();
  // While the campaign runs, its leads (and its status) refresh by themselves; not while a lead is edited.
  const running = campaigns.data?.find((c) => c.id === campaignId)?.status === 'in-progress';
  useInterval(() => {
    leads.reload();
    campaigns.reload();
  }, running && editing === null ? 3000 : null);

  const [calling, setCalling] = useState<{ lead: string; callId: number } | null>(null);
  const assistantId = campaigns.data?.find((c) => c.id === campaignId)?.assistant_id;
  /** A one-off call to the lead with its variables, by the campaign's assistant (not one of the campaign's attempts). */
  const callNow = async (lead: Lead) => {
    setCalling(null);
    if (!assistantId) return;
    const res = await del.run(() =>
      unwrap(api.POST('/api/user/make_call', { body: { phone_number: lead.phone_number, assistant_id: assistantId, variables: lead.variables } as never })),
    );
    if (res) setCalling({ lead: lead.phone_number, callId: (res as { call_id: number }).call_id });
  };

  const remove = async (lead: Lead) => {
    if (!window.confirm(`Delete the lead ${lead.phone_number}?`)) return;
    await del.run(() => unwrap(api.DELETE('/api/user/leads/{id}', { params: { path: { id: String(lead.id) } } })));
    leads.reload();
  };

  return (
    <>
      <PageTitle actions={<Link className="button" to={`/leads/import${campaignId ? `?campaign=${campaignId}` : ''}`}>Import a CSV file</Link>}>Leads</PageTitle>
      <ErrorBanner error={campaigns.error ?? leads.error ?? del.error} />
      {calling && (
        <Notice>
          Calling {calling.lead}. <Link to={`/calls/${calling.callId}`}>Follow call #{calling.callId}</Link>
        </Notice>
      )}
      {campaigns.data && campaigns.data.length === 0 && (
        <Empty>
          Leads belong to a campaign: <Link to="/campaigns/new">create a campaign</Link> first.
        </Empty>
      )}
      {campaigns.data && campaigns.data.length > 0 && (
        <>
          <Select
            label="Campaign"
            value={String(campaignId)}
            onChange={(v) => {
              setPage(1);
              setParams({ campaign: v });
            }}
            options={campaigns.data.map((c) => ({ value: String(c.id), label: c.name }))}
          />
          <AddLead campaignId={campaignId} onAdded={leads.reload} />
          {leads.loading && !leads.data && <Loading what="leads" />}
          {leads.data && leads.data.total === 0 && <Empty>This campaign has no leads yet.</Empty>}
          {leads.data && leads.data.total > 0 && (
            <>
              <Table caption="Leads of the campaign" columns={['Phone number', 'Status', 'Calls', 'Variables', 'Secondary contacts', 'Actions']}>
                  {leads.data.data.map((l) =>
                    editing === l.id ? (
                      <EditLead key={l.id} lead={l} onDone={() => { setEditing(null); leads.reload(); }} />
                    ) : (
                      <tr key={l.id}>
                        <td className="mono">{l.phone_number}</td>
                        <td>
                          <StatusBadge status={l.status} />
                        </td>
                        <td data-testid={`lead-calls-${l.id}`}>
                          {l.attempts} made
                          {l.in_call && ' · in a call now'}
                          {l.next_attempt_at && (
                            <>
                              {' · next try '}
                              <When utc={l.next_attempt_at} />
                            </>
                          )}
                        </td>
                        <td className="mono small">{JSON.stringify(l.variables)}</td>
                        <td>{l.secondary_contacts.map((s) => s.phone_number).join(', ') || '—'}</td>
                        <td className="row-actions">
                          <button type="button" className="secondary" onClick={() => setEditing(l.id)} aria-label={`Edit ${l.phone_number}`}>
                            Edit
                          </button>
                          <button
                            type="button"
                            className="secondary"
                            onClick={() => callNow(l)}
                            disabled={del.busy || l.in_call}
                            aria-label={`Call now: ${l.phone_number}`}
                            title="A one-off call with the lead's variables, outside the campaign's attempts"
                          >
                            Call now
                          </button>
                          <button type="button" className="danger" onClick={() => remove(l)} aria-label={`Delete ${l.phone_number}`}>
                            Delete
                          </button>
                        </td>
                      </tr>
                    ),
                  )}
              </Table>
              <Pager label="Lead list" page={leads.data.current_page} lastPage={leads.data.last_page} total={leads.data.total} onPage={setPage} />
            </>
          )}
        </>
      )}
    </>
  );
}

function AddLead({ campaignId, onAdded }: { campaignId: number; onAdded(): void }) {
  const api = useApi();
  const [phone, setPhone] = useState('');
  const [variables, setVariables] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const submit = useSubmit();
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setDone(null);
    const res = await submit.run(() =>
      unwrap(api.POST('/api/user/lead', { body: { campaign_id: campaignId, phone_number: phone, variables: parseVariables(variables) as never } })),
    );
    if (res) {
      setDone(`${res.message}: ${res.data.phone_number}`);
      setPhone('');
      setVariables('');
      onAdded();
    }
  };
  return (
    <form className="panel inline-form" onSubmit={onSubmit} noValidate aria-labelledby="add-lead-heading">
      <h2 id="add-lead-heading">Add a lead</h2>
      <TextField label="Phone number" value={phone} onChange={setPhone} errors={submit.fieldErrors.phone_number} />
      <TextField label="Variables (JSON object)" value={variables} onChange={setVariables} errors={submit.fieldErrors.variables} placeholder='{"customer_name": "Kim"}' />
      <button type="submit" disabled={submit.busy}>
        Add lead
      </button>
      <ErrorBanner error={submit.fieldErrors.phone_number || submit.fieldErrors.variables ? null : submit.error} />
      {done && <Notice>{done}</Notice>}
    </form>
  );
}

function EditLead({ lead, onDone }: { lead: Lead; onDone(): void }) {
  const api = useApi();
  const [phone, setPhone] = useState(lead.phone_number);
  const [status, setStatus] = useState<string>(lead.status);
  const [variables, setVariables] = useState('');
  const submit = useSubmit();
  const save = async () => {
    const body: Record<string, unknown> = {};
    if (phone !== lead.phone_number) body.phone_number = phone;
    if (status !== lead.status) body.status = status;
    if (variables.trim() !== '') body.variables = parseVariables(variables);
    const res = await submit.run(() => unwrap(api.PUT('/api/user/leads/{id}', { params: { path: { id: String(lead.id) } }, body: body as never })));
    if (res) onDone();
  };
  return (
    <tr className="editing">
      <td>
        <TextField label="Phone number" value={phone} onChange={setPhone} errors={submit.fieldErrors.phone_number} />
      </td>
      <td>
        <Select label="Status" value={status} onChange={setStatus} errors={submit.fieldErrors.status} options={['created', 'completed', 'reached-max-retries'].map((s) => ({ value: s, label: s }))} />
      </td>
      <td colSpan={2}>
        <TextField label="Variables to merge (JSON object)" value={variables} onChange={setVariables} errors={submit.fieldErrors.variables} placeholder={JSON.stringify(lead.variables)} />
        <ErrorBanner error={Object.keys(submit.fieldErrors).length ? null : submit.error} />
      </td>
      <td className="row-actions">
        <button type="button" onClick={save} disabled={submit.busy}>
          Save
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </td>
    </tr>
  );
}
