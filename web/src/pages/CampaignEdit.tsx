import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { BackLink, ErrorBanner, Loading, PageTitle } from '../ui/common';
import { Checkbox, Group, NumberField, Select, TextField } from '../ui/fields';
import { useLoad, useSubmit } from '../ui/hooks';

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

interface CampaignForm {
  name: string;
  assistant_id: string;
  timezone: string;
  max_calls_in_parallel: string;
  allowed_hours_start_time: string;
  allowed_hours_end_time: string;
  allowed_days: string[];
  max_retries: string;
  retry_interval: string;
  retry_on_voicemail: boolean;
  retry_on_goal_incomplete: boolean;
  goal_completion_variable: string;
  mark_complete_when_no_leads: boolean;
}

const asNumber = (s: string): number | string => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s);

function bodyOf(f: CampaignForm, isNew: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: f.name,
    assistant_id: f.assistant_id === '' ? null : Number(f.assistant_id),
    max_calls_in_parallel: asNumber(f.max_calls_in_parallel),
    allowed_hours_start_time: f.allowed_hours_start_time,
    allowed_hours_end_time: f.allowed_hours_end_time,
    allowed_days: f.allowed_days,
    max_retries: asNumber(f.max_retries),
    retry_interval: asNumber(f.retry_interval),
    retry_on_voicemail: f.retry_on_voicemail,
    retry_on_goal_incomplete: f.retry_on_goal_incomplete,
    goal_completion_variable: f.goal_completion_variable === '' ? null : f.goal_completion_variable,
    mark_complete_when_no_leads: f.mark_complete_when_no_leads,
  };
  // A new campaign without a time zone takes its assistant's.
  if (f.timezone !== '' || !isNew) body.timezone = f.timezone;
  return body;
}

export default function CampaignEdit() {
  const { id } = useParams();
  const isNew = id === undefined;
  const api = useApi();
  const navigate = useNavigate();
  const data = useLoad(async () => {
    const assistants = await unwrap(api.GET('/api/user/assistants/outbound'));
    const campaign = isNew ? null : (await unwrap(api.GET('/api/user/campaign/{id}', { params: { path: { id: String(id) } } }))).data;
    return { assistants, campaign };
  }, [id]);
  const [form, setForm] = useState<CampaignForm | null>(null);
  const submit = useSubmit();

  useEffect(() => {
    if (!data.data) return;
    const c = data.data.campaign;
    setForm(
      c
        ? {
            name: c.name,
            assistant_id: String(c.assistant_id),
            timezone: c.timezone,
            max_calls_in_parallel: String(c.max_calls_in_parallel),
            allowed_hours_start_time: c.allowed_hours_start_time,
            allowed_hours_end_time: c.allowed_hours_end_time,
            allowed_days: c.allowed_days,
            max_retries: String(c.max_retries),
            retry_interval: String(c.retry_interval),
            retry_on_voicemail: c.retry_on_voicemail,
            retry_on_goal_incomplete: c.retry_on_goal_incomplete,
            goal_completion_variable: c.goal_completion_variable ?? '',
            mark_complete_when_no_leads: c.mark_complete_when_no_leads,
          }
        : {
            name: '',
            assistant_id: String(data.data.assistants[0]?.id ?? ''),
            timezone: '',
            max_calls_in_parallel: '3',
            allowed_hours_start_time: '00:00',
            allowed_hours_end_time: '23:59',
            allowed_days: [...DAYS],
            max_retries: '3',
            retry_interval: '60',
            retry_on_voicemail: false,
            retry_on_goal_incomplete: false,
            goal_completion_variable: '',
            mark_complete_when_no_leads: true,
          },
    );
  }, [data.data]);

  if (data.error) return <ErrorBanner error={data.error} />;
  if (!form || !data.data) return <Loading what="the campaign" />;
  const errors = submit.fieldErrors;
  const set = <K extends keyof CampaignForm>(k: K) => (v: CampaignForm[K]) => setForm({ ...form, [k]: v });

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const body = bodyOf(form, isNew) as never;
    const res = isNew
      ? await submit.run(() => unwrap(api.POST('/api/user/campaigns', { body })))
      : await submit.run(() => unwrap(api.PUT('/api/user/campaign/{id}', { params: { path: { id: String(id) } }, body })));
    if (res) navigate(`/campaigns/${res.data.id}`, { replace: isNew });
  };

  return (
    <>
      <BackLink to={isNew ? '/campaigns' : `/campaigns/${id}`}>{isNew ? 'All campaigns' : 'The campaign'}</BackLink>
      <PageTitle>{isNew ? 'New campaign' : `Change campaign: ${data.data.campaign?.name}`}</PageTitle>
      <form onSubmit={onSubmit} noValidate>
        <Group legend="Campaign">
          <TextField label="Name" value={form.name} onChange={set('name')} errors={errors.name} required />
          <Select
            label="Assistant"
            value={form.assistant_id}
            onChange={set('assistant_id')}
            errors={errors.assistant_id}
            options={[{ value: '', label: 'Choose an outbound assistant' }, ...data.data.assistants.map((a) => ({ value: String(a.id), label: a.name }))]}
          />
          <TextField label="Time zone" value={form.timezone} onChange={set('timezone')} errors={errors.timezone} hint={isNew ? "Empty: the assistant's time zone." : undefined} />
          <NumberField label="Calls in parallel (1–100)" value={form.max_calls_in_parallel} onChange={set('max_calls_in_parallel')} errors={errors.max_calls_in_parallel} />
        </Group>
        <Group legend="Calling window">
          <TextField label="From (HH:MM)" value={form.allowed_hours_start_time} onChange={set('allowed_hours_start_time')} errors={errors.allowed_hours_start_time} />
          <TextField label="Until (HH:MM)" value={form.allowed_hours_end_time} onChange={set('allowed_hours_end_time')} errors={errors.allowed_hours_end_time} />
          <fieldset>
            <legend>Days</legend>
            {DAYS.map((d) => (
              <Checkbox key={d} label={d[0].toUpperCase() + d.slice(1)} checked={form.allowed_days.includes(d)} onChange={(on) => set('allowed_days')(on ? DAYS.filter((x) => x === d || form.allowed_days.includes(x)) : form.allowed_days.filter((x) => x !== d))} />
            ))}
            {errors.allowed_days && <p className="field-error" role="alert">{errors.allowed_days.join(' ')}</p>}
          </fieldset>
        </Group>
        <Group legend="Retries">
          <NumberField label="Attempts per number (1–5)" value={form.max_retries} onChange={set('max_retries')} errors={errors.max_retries} />
          <NumberField label="Minutes between attempts (10–4320)" value={form.retry_interval} onChange={set('retry_interval')} errors={errors.retry_interval} />
          <Checkbox label="Retry when voicemail answers" checked={form.retry_on_voicemail} onChange={set('retry_on_voicemail')} errors={errors.retry_on_voicemail} />
          <Checkbox label="Retry when the goal was not met" checked={form.retry_on_goal_incomplete} onChange={set('retry_on_goal_incomplete')} errors={errors.retry_on_goal_incomplete} />
          <TextField label="Goal variable" value={form.goal_completion_variable} onChange={set('goal_completion_variable')} errors={errors.goal_completion_variable} hint="An extracted field that is true when the goal was met." />
          <Checkbox label="Complete the campaign when no lead is left" checked={form.mark_complete_when_no_leads} onChange={set('mark_complete_when_no_leads')} errors={errors.mark_complete_when_no_leads} />
        </Group>
        <ErrorBanner error={submit.error} />
        <button type="submit" disabled={submit.busy}>
          {submit.busy ? 'Saving…' : isNew ? 'Create campaign' : 'Save changes'}
        </button>
      </form>
    </>
  );
}
