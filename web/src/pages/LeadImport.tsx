/**
 * CSV import: the file is parsed in the browser (papaparse), the user maps columns to the
 * phone number, to variables and to the placeholders the campaign's assistant speaks
 * (`{{name}}`), with a warning for each placeholder no column fills before anything is sent;
 * the rows go to the bulk route in batches; the service normalises numbers and validates each
 * row, and every refused row is listed with its line.
 */
import Papa from 'papaparse';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { BackLink, ErrorBanner, Notice, PageTitle, Table } from '../ui/common';
import { Checkbox, Select } from '../ui/fields';
import { useLoad } from '../ui/hooks';
import { ApiError } from '../api';
import { columnFor, fills, placeholders } from '../ui/placeholders';

/** Rows per request (the service takes up to 1,000). */
const BATCH = 1000;
const PHONE_HINTS = /phone|number|mobile|tel|nummer/i;

interface Parsed {
  fields: string[];
  rows: Record<string, string>[];
}

interface RowError {
  line: number;
  phone: string;
  messages: string[];
}

export default function LeadImport() {
  const api = useApi();
  const [params] = useSearchParams();
  const campaigns = useLoad(() => unwrap(api.GET('/api/user/campaigns')), []);
  const [campaignId, setCampaignId] = useState(params.get('campaign') ?? '');
  const [parsed, setParsed] = useState<Parsed | null>(null);
  const [parseError, setParseError] = useState<string | null>(null);
  const [phoneColumn, setPhoneColumn] = useState('');
  const [variableColumns, setVariableColumns] = useState<string[]>([]);
  const [allowDuplicates, setAllowDuplicates] = useState(false);
  const [progress, setProgress] = useState<{ sent: number; created: number } | null>(null);
  const [rowErrors, setRowErrors] = useState<RowError[]>([]);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [running, setRunning] = useState(false);
  const chosenCampaign = campaignId || String(campaigns.data?.[0]?.id ?? '');
  // The placeholders the campaign's assistant speaks, and the defaults its own variables give.
  const speaks = useLoad(async () => {
    const campaign = campaigns.data?.find((c) => String(c.id) === chosenCampaign);
    if (!campaign) return null;
    const a = (await unwrap(api.GET('/api/user/assistant/{id}', { params: { path: { id: String(campaign.assistant_id) } } }))).data;
    return { assistant: a.name, names: placeholders(a.initial_message, a.system_prompt), defaults: (a.variables ?? {}) as Record<string, unknown> };
  }, [chosenCampaign, campaigns.data]);
  /** Placeholder → the column that fills it ('' for none). */
  const [placeholderColumns, setPlaceholderColumns] = useState<Record<string, string>>({});
  useEffect(() => {
    if (!parsed || !speaks.data) return;
    setPlaceholderColumns(Object.fromEntries(speaks.data.names.map((n) => [n, columnFor(n, parsed.fields) ?? ''])));
  }, [parsed, speaks.data]);
  const names = speaks.data?.names ?? [];
  const warnings = parsed
    ? names.flatMap((n) => {
        const column = placeholderColumns[n] ?? '';
        if (!column) {
          if (fills(speaks.data?.defaults, n)) return [];
          return [`{{${n}}}: no column fills it, and the assistant has no default: its calls will leave it out of what is said.`];
        }
        const empty = parsed.rows.filter((r) => !r[column]).length;
        return empty > 0 ? [`{{${n}}}: the column "${column}" is empty in ${empty.toLocaleString('en')} of ${parsed.rows.length.toLocaleString('en')} rows.`] : [];
      })
    : [];

  const onFile = (file: File | undefined) => {
    setParsed(null);
    setParseError(null);
    setProgress(null);
    setRowErrors([]);
    if (!file) return;
    Papa.parse<Record<string, string>>(file, {
      header: true,
      skipEmptyLines: 'greedy',
      complete: (result) => {
        const fields = result.meta.fields ?? [];
        if (fields.length === 0) {
          setParseError('The file has no header row: its first line must name the columns.');
          return;
        }
        setParsed({ fields, rows: result.data });
        const phone = fields.find((f) => PHONE_HINTS.test(f)) ?? fields[0];
        setPhoneColumn(phone);
        setVariableColumns(fields.filter((f) => f !== phone));
      },
      error: (err) => setParseError(`The file could not be read: ${err.message}`),
    });
  };

  const run = async () => {
    if (!parsed) return;
    setRunning(true);
    setFailure(null);
    setRowErrors([]);
    const errors: RowError[] = [];
    let created = 0;
    setProgress({ sent: 0, created: 0 });
    try {
      for (let start = 0; start < parsed.rows.length; start += BATCH) {
        const batch = parsed.rows.slice(start, start + BATCH);
        const leads = batch.map((row) => ({
          phone_number: row[phoneColumn] ?? '',
          variables: {
            ...Object.fromEntries(variableColumns.map((c) => [c, row[c] ?? ''])),
            // A placeholder mapped onto a column of another name takes its value under the placeholder's name.
            ...Object.fromEntries(names.flatMap((n) => (placeholderColumns[n] ? [[n, row[placeholderColumns[n]!] ?? '']] : []))),
          },
        }));
        const res = await unwrap(
          api.POST('/api/user/leads/bulk', { body: { campaign_id: Number(chosenCampaign), allow_duplicate: allowDuplicates, leads } }),
        );
        created += res.data.created.length;
        for (const e of res.data.errors) {
          // +2: the header is line 1, and rows count from 0.
          errors.push({ line: start + e.row + 2, phone: leads[e.row].phone_number, messages: Object.values(e.errors).flat() });
        }
        setProgress({ sent: Math.min(start + BATCH, parsed.rows.length), created });
        setRowErrors([...errors]);
      }
    } catch (err) {
      setFailure(err instanceof ApiError ? err : new ApiError(0, String(err)));
    } finally {
      setRunning(false);
    }
  };

  const total = parsed?.rows.length ?? 0;
  return (
    <>
      <BackLink to={`/leads${chosenCampaign ? `?campaign=${chosenCampaign}` : ''}`}>Leads</BackLink>
      <PageTitle>Import leads from a CSV file</PageTitle>
      <ErrorBanner error={campaigns.error} />
      {campaigns.data && campaigns.data.length === 0 && (
        <p>
          Leads belong to a campaign: <Link to="/campaigns/new">create a campaign</Link> first.
        </p>
      )}
      {campaigns.data && campaigns.data.length > 0 && (
        <>
          <Select label="Campaign" value={chosenCampaign} onChange={setCampaignId} options={campaigns.data.map((c) => ({ value: String(c.id), label: c.name }))} />
          <div className="field">
            <label htmlFor="csv-file">CSV file (first line: column names)</label>
            <input id="csv-file" type="file" accept=".csv,text/csv" onChange={(e) => onFile(e.target.files?.[0])} />
          </div>
          {parseError && <p className="error-banner" role="alert">{parseError}</p>}
        </>
      )}
      {parsed && (
        <section className="panel" aria-labelledby="mapping-heading">
          <h2 id="mapping-heading">Columns</h2>
          <p>
            {total.toLocaleString('en')} rows. Phone numbers may be in any common notation; national numbers are read in the service's default region.
          </p>
          <Select label="Phone number column" value={phoneColumn} onChange={(v) => { setPhoneColumn(v); setVariableColumns(variableColumns.filter((c) => c !== v)); }} options={parsed.fields.map((f) => ({ value: f, label: f }))} />
          <fieldset>
            <legend>Columns to keep as variables</legend>
            {parsed.fields
              .filter((f) => f !== phoneColumn)
              .map((f) => (
                <Checkbox key={f} label={f} checked={variableColumns.includes(f)} onChange={(on) => setVariableColumns(on ? [...variableColumns, f] : variableColumns.filter((c) => c !== f))} />
              ))}
          </fieldset>
          {names.length > 0 && (
            <fieldset data-testid="placeholder-mapping">
              <legend>What {speaks.data!.assistant} says with each lead's values</legend>
              {names.map((n) => (
                <Select
                  key={n}
                  label={`Column for {{${n}}}`}
                  value={placeholderColumns[n] ?? ''}
                  onChange={(v) => setPlaceholderColumns({ ...placeholderColumns, [n]: v })}
                  options={[{ value: '', label: fills(speaks.data?.defaults, n) ? `none (the assistant's default: ${String(speaks.data!.defaults[n])})` : 'none' }, ...parsed.fields.map((f) => ({ value: f, label: f }))]}
                />
              ))}
            </fieldset>
          )}
          {warnings.length > 0 && (
            <div className="callout" role="status" data-testid="placeholder-warnings">
              <p>Before you import:</p>
              <ul>
                {warnings.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            </div>
          )}
          <Checkbox label="Allow numbers the campaign already has" checked={allowDuplicates} onChange={setAllowDuplicates} />
          <button type="button" onClick={run} disabled={running || total === 0}>
            {running ? 'Importing…' : `Import ${total.toLocaleString('en')} leads`}
          </button>
        </section>
      )}
      {progress && (
        <section aria-labelledby="result-heading">
          <h2 id="result-heading">Import</h2>
          <progress max={total} value={progress.sent} aria-label="Rows sent">
            {progress.sent} of {total}
          </progress>
          <p role="status" data-testid="import-status">
            {progress.sent.toLocaleString('en')} of {total.toLocaleString('en')} rows sent: {progress.created.toLocaleString('en')} leads created,{' '}
            {rowErrors.length.toLocaleString('en')} rows refused{!running && progress.sent === total ? '. Done.' : '.'}
          </p>
          <ErrorBanner error={failure} />
          {rowErrors.length > 0 && (
            <Table caption="Refused rows" showCaption columns={['Line', 'Phone number as given', 'Why']}>
                {rowErrors.slice(0, 500).map((e) => (
                  <tr key={e.line}>
                    <td>{e.line}</td>
                    <td className="mono">{e.phone}</td>
                    <td>{e.messages.join(' ')}</td>
                  </tr>
                ))}
            </Table>
          )}
          {rowErrors.length > 500 && <Notice>The first 500 refused rows are shown.</Notice>}
        </section>
      )}
    </>
  );
}
