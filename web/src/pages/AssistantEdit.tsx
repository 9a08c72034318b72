import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { BackLink, ErrorBanner, Loading, Notice, PageTitle } from '../ui/common';
import { Checkbox, Group, NumberField, Select, TextField } from '../ui/fields';
import { useLoad, useSubmit } from '../ui/hooks';
import { fills, placeholders } from '../ui/placeholders';
import { ErrorSummary, useUnsavedChangesGuard } from '../ui/form-guard';
import { backchannelErrors, bodyFromForm, changedFields, emptyForm, formFromRecord, type AssistantForm } from './assistant-form';
import { AssistantVersions } from './AssistantVersions';
import { WebhookSwitches } from './AssistantWebhooks';
import { AssistantTabs } from './AssistantTabs';
import { CallANumber } from './CallANumber';
import { TalkPanel } from './TalkPanel';
import { TestRunView } from './TestRunView';
import { WidgetKeys } from './WidgetKeys';

const TIMEZONES: string[] = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? ['UTC'];

export default function AssistantEdit() {
  const { id } = useParams();
  const isNew = id === undefined;
  const api = useApi();
  const navigate = useNavigate();
  const refs = useLoad(async () => {
    const [voices, languages, models, numbers, tools, bases] = await Promise.all([
      unwrap(api.GET('/api/user/assistants/voices')),
      unwrap(api.GET('/api/user/assistants/languages')),
      unwrap(api.GET('/api/user/assistants/models')),
      unwrap(api.GET('/api/user/phone-numbers/all')),
      unwrap(api.GET('/api/user/tools')),
      unwrap(api.GET('/api/user/knowledgebases')),
    ]);
    const record = isNew ? null : (await unwrap(api.GET('/api/user/assistant/{id}', { params: { path: { id: String(id) } } }))).data;
    return { voices, languages, models, numbers: numbers.data, tools, bases: bases.data, record };
  }, [id]);
  const [initial, setInitial] = useState<AssistantForm | null>(null);
  const [form, setForm] = useState<AssistantForm | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  /** Bumped after a save, so the versions panel shows the new version. */
  const [versionsRound, setVersionsRound] = useState(0);
  const submit = useSubmit();
  /** "Test these changes": a run of the stored scenarios with the unsaved form as assistant_overrides. */
  const trial = useSubmit();
  const [trialRun, setTrialRun] = useState<number | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const dirty = form !== null && initial !== null && JSON.stringify(form) !== JSON.stringify(initial);
  const letGo = useUnsavedChangesGuard(dirty);

  useEffect(() => {
    if (!refs.data) return;
    const f = refs.data.record ? formFromRecord(refs.data.record as Record<string, unknown>, refs.data.models) : emptyForm();
    if (!refs.data.record) f.voice_id = String(refs.data.voices.find((v) => v.mode === 'pipeline')?.id ?? '');
    setInitial(f);
    setForm(f);
  }, [refs.data]);

  if (refs.error) return <ErrorBanner error={refs.error} />;
  if (!refs.data || !form || !initial) return <Loading what="the assistant" />;
  const { voices, languages, models, numbers, tools, bases, record } = refs.data;
  const errors = submit.fieldErrors;
  const set = <K extends keyof AssistantForm>(key: K) => (value: AssistantForm[K]) => setForm({ ...form, [key]: value });

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSaved(null);
    if (isNew) {
      const res = await submit.run(() => unwrap(api.POST('/api/user/assistant', { body: bodyFromForm(form) as never })));
      if (res) {
        letGo();
        navigate(`/assistants/${(res as { data: { id: number } }).data.id}`, { replace: true });
      }
      return;
    }
    const body = changedFields(initial, form);
    const res = await submit.run(() => unwrap(api.PUT('/api/user/assistant/{id}', { params: { path: { id: String(id) } }, body: body as never })));
    if (res) {
      setSaved(res.message);
      refs.reload();
      setVersionsRound((n) => n + 1);
    }
  };

  const testChanges = async () => {
    setTrialRun(null);
    const overrides = changedFields(initial, form) as Record<string, unknown>;
    const res = await trial.run(() => unwrap(api.POST('/api/user/assistants/{id}/test-runs', { params: { path: { id: String(id) } }, body: { assistant_overrides: overrides } })));
    if (res) setTrialRun(res.data.id);
  };

  const voiceOptions = voices.filter((v) => v.mode === form.engine_type).map((v) => ({ value: String(v.id), label: v.name }));
  const title = isNew ? 'New assistant' : `Assistant: ${record?.name ?? ''}`;

  return (
    <>
      <BackLink to="/assistants">All assistants</BackLink>
      <PageTitle>{title}</PageTitle>
      {!isNew && <AssistantTabs id={String(id)} current="settings" />}
      {!isNew && <TalkPanel assistantId={Number(id)} />}
      {!isNew && record && (record as { type?: string }).type !== 'inbound' && (
        <CallANumber
          assistantId={Number(id)}
          names={placeholders(initial.initial_message, initial.system_prompt)}
          defaults={(record as { variables?: Record<string, unknown> | null }).variables ?? {}}
        />
      )}
      <form onSubmit={onSubmit} noValidate ref={formRef}>
        <ErrorSummary error={submit.error} form={formRef} />
        <Group legend="Basics">
          <TextField label="Name" value={form.assistant_name} onChange={set('assistant_name')} errors={errors.assistant_name} required />
          <Select
            label="Direction"
            value={form.calls_direction}
            onChange={set('calls_direction')}
            errors={errors.calls_direction}
            options={[
              { value: 'make', label: 'Places calls (outbound)' },
              { value: 'receive', label: 'Takes calls (inbound)' },
            ]}
          />
          <Select label="Status" value={form.status} onChange={set('status')} errors={errors.status} options={['active', 'inactive'].map((v) => ({ value: v, label: v }))} />
          <Select
            label="Engine"
            value={form.engine_type}
            onChange={set('engine_type')}
            errors={errors.engine_type}
            options={['pipeline', 'multimodal'].map((v) => ({ value: v, label: v }))}
          />
          <Select label="Voice" value={form.voice_id} onChange={set('voice_id')} errors={errors.voice_id} options={[{ value: '', label: 'Choose a voice' }, ...voiceOptions]} />
          <Select label="Language" value={form.language} onChange={set('language')} errors={errors.language} options={languages.map((l) => ({ value: l.name, label: l.name }))} />
          <Select
            label="LLM model"
            value={form.llm_model}
            onChange={set('llm_model')}
            errors={errors.llm_model}
            options={[{ value: '', label: 'Default model' }, ...models.map((m) => ({ value: m.name, label: m.name }))]}
          />
          <TextField label="Time zone" value={form.timezone} onChange={set('timezone')} errors={errors.timezone} list="timezones" />
          <datalist id="timezones">
            {TIMEZONES.map((tz) => (
              <option key={tz} value={tz} />
            ))}
          </datalist>
          <Select
            label="Phone number"
            value={form.phone_number_id}
            onChange={set('phone_number_id')}
            errors={errors.phone_number_id}
            options={[{ value: '', label: 'None' }, ...numbers.map((n) => ({ value: String(n.id), label: `${n.phone_number} (${n.type_label})` }))]}
          />
        </Group>

        <Group legend="Conversation">
          <Select
            label="Who speaks first"
            value={form.who_speaks_first}
            onChange={set('who_speaks_first')}
            errors={errors.who_speaks_first}
            options={['AI assistant', 'Customer'].map((v) => ({ value: v, label: v }))}
          />
          <TextField label="Initial message" multiline rows={2} value={form.initial_message} onChange={set('initial_message')} errors={errors.initial_message} hint="{{name}} placeholders are filled from the call's variables." />
          <TextField label="System prompt" multiline rows={6} value={form.system_prompt} onChange={set('system_prompt')} errors={errors.system_prompt} />
          <PlaceholderList texts={[form.initial_message, form.system_prompt]} variables={form.variables} />
          <TextField label="Variables (JSON object)" multiline rows={3} value={form.variables} onChange={set('variables')} errors={errors.variables} />
          <TextField
            label="End-call tool description"
            multiline
            rows={2}
            value={form.end_call_description}
            onChange={set('end_call_description')}
            errors={errors['end_call_tool.description']}
          />
          <fieldset className="tool-picker">
            <legend>Mid-call tools</legend>
            {tools.length === 0 && <p className="hint">No tools yet; create them under Mid-call tools.</p>}
            {tools.map((t) => (
              <Checkbox
                key={t.id}
                label={`${t.name} — ${t.description}`}
                checked={form.tool_ids.includes(t.id)}
                onChange={(on) => set('tool_ids')(on ? [...form.tool_ids, t.id] : form.tool_ids.filter((x) => x !== t.id))}
              />
            ))}
            {errors.tool_ids && <p className="field-error" role="alert">{errors.tool_ids.join(' ')}</p>}
          </fieldset>
        </Group>

        <Group legend="Knowledge base">
          <Select
            label="Knowledge base"
            value={form.knowledgebase_id}
            onChange={set('knowledgebase_id')}
            errors={errors.knowledgebase_id}
            options={[{ value: '', label: 'None' }, ...bases.map((b) => ({ value: String(b.id), label: `${b.name} (${b.status})` }))]}
            hint={bases.length === 0 ? 'No knowledge bases yet; create them under Knowledge.' : undefined}
          />
          {form.knowledgebase_id !== '' && (
            <Select
              label="How the assistant uses it"
              value={form.engine_type === 'multimodal' ? 'function_call' : form.knowledgebase_mode}
              onChange={set('knowledgebase_mode')}
              errors={errors.knowledgebase_mode}
              options={[
                { value: 'function_call', label: 'Searches it when it needs to (function call)' },
                ...(form.engine_type === 'multimodal' ? [] : [{ value: 'prompt', label: 'Gets passages with every reply (prompt)' }]),
              ]}
              hint={form.engine_type === 'multimodal' ? 'Only function_call mode is available for multimodal assistants.' : undefined}
            />
          )}
        </Group>

        <Group legend="Voice and turn-taking">
          <NumberField label="LLM temperature (0–1)" value={form.llm_temperature} onChange={set('llm_temperature')} errors={errors.llm_temperature} />
          <NumberField label="Voice stability (0–1)" value={form.voice_stability} onChange={set('voice_stability')} errors={errors.voice_stability} />
          <NumberField label="Voice similarity (0–1)" value={form.voice_similarity} onChange={set('voice_similarity')} errors={errors.voice_similarity} />
          <NumberField label="Speech speed (0.7–1.2)" value={form.speech_speed} onChange={set('speech_speed')} errors={errors.speech_speed} />
          <Select label="End-of-turn detection" value={form.endpoint_type} onChange={set('endpoint_type')} errors={errors.endpoint_type} options={[{ value: 'vad', label: 'vad' }, { value: 'ai', label: 'ai' }]} />
          <NumberField label="Endpoint sensitivity (0–5)" value={form.endpoint_sensitivity} onChange={set('endpoint_sensitivity')} errors={errors.endpoint_sensitivity} />
          <NumberField label="Interrupt sensitivity (0–5)" value={form.interrupt_sensitivity} onChange={set('interrupt_sensitivity')} errors={errors.interrupt_sensitivity} />
          <Checkbox label="Allow interruptions" checked={form.allow_interruptions} onChange={set('allow_interruptions')} errors={errors.allow_interruptions} />
          <Checkbox label="Require a minimum number of words to interrupt" checked={form.use_min_interrupt_words} onChange={set('use_min_interrupt_words')} errors={errors.use_min_interrupt_words} />
          {form.use_min_interrupt_words && (
            <NumberField label="Minimum interrupt words (0–10)" value={form.min_interrupt_words} onChange={set('min_interrupt_words')} errors={errors.min_interrupt_words} />
          )}
          <TextField
            label="Backchannel words"
            value={form.backchannel_words}
            onChange={set('backchannel_words')}
            errors={backchannelErrors(errors)}
            hint="Comma-separated, up to 50 words of up to 40 characters. Said over a reply they never interrupt it (like mhm, yeah, okay in the built-in list)."
          />
          <NumberField label="Ambient sound volume (0–1)" value={form.ambient_sound_volume} onChange={set('ambient_sound_volume')} errors={errors.ambient_sound_volume} />
          <Checkbox label="Filler audio" checked={form.filler_audios} onChange={set('filler_audios')} errors={errors.filler_audios} />
          <Checkbox label="Noise cancellation" checked={form.noise_cancellation} onChange={set('noise_cancellation')} errors={errors.noise_cancellation} />
        </Group>

        <Group legend="Call limits">
          <NumberField label="Re-engagement interval, seconds (7–600)" value={form.re_engagement_interval} onChange={set('re_engagement_interval')} errors={errors.re_engagement_interval} />
          <NumberField label="Maximum call duration, seconds (20–1200)" value={form.max_call_duration} onChange={set('max_call_duration')} errors={errors.max_call_duration} />
          <NumberField label="Maximum silence, seconds (1–120)" value={form.max_silence_duration} onChange={set('max_silence_duration')} errors={errors.max_silence_duration} />
          <Checkbox label="Say a closing line before a silence hang-up" checked={form.silence_goodbye} onChange={set('silence_goodbye')} errors={errors.silence_goodbye_message} />
          {form.silence_goodbye && (
            <TextField label="Closing line" value={form.silence_goodbye_message} onChange={set('silence_goodbye_message')} errors={errors.silence_goodbye_message} hint="Empty: the default line in the assistant's language." />
          )}
          <Checkbox label="Hang up on voicemail" checked={form.end_call_on_voicemail} onChange={set('end_call_on_voicemail')} errors={errors.end_call_on_voicemail} />
          <Checkbox label="Record calls" checked={form.record_call} onChange={set('record_call')} errors={errors.record_call} />
        </Group>

        <Group legend="After the call">
          <Checkbox label="Evaluate the call (status and summary)" checked={form.post_call_evaluation} onChange={set('post_call_evaluation')} errors={errors.post_call_evaluation} />
          <PostCallSchema rows={form.post_call_schema} onChange={set('post_call_schema')} errors={errors} />
          <Checkbox label="Send the post-call webhook" checked={form.is_webhook_active} onChange={set('is_webhook_active')} errors={errors.is_webhook_active} />
          <TextField label="Webhook URL" type="url" value={form.webhook_url} onChange={set('webhook_url')} errors={errors.webhook_url} />
          <Checkbox label="Only for completed calls" checked={form.send_webhook_only_on_completed} onChange={set('send_webhook_only_on_completed')} errors={errors.send_webhook_only_on_completed} />
          <Checkbox label="Include the recording link" checked={form.include_recording_in_webhook} onChange={set('include_recording_in_webhook')} errors={errors.include_recording_in_webhook} />
        </Group>

        <div className="save-bar">
          <ErrorBanner error={submit.error} />
          {saved && <Notice>{saved}</Notice>}
          <button type="submit" disabled={submit.busy}>
            {submit.busy ? 'Saving…' : isNew ? 'Create assistant' : 'Save changes'}
          </button>{' '}
          {!isNew && (
            <button type="button" className="secondary" onClick={testChanges} disabled={trial.busy}>
              Test these changes
            </button>
          )}
          {dirty && <span className="hint"> Unsaved changes</span>}
        </div>
        <ErrorBanner error={trial.error} />
        {trialRun !== null && (
          <div aria-label="Test of the unsaved changes">
            <TestRunView key={trialRun} runId={trialRun} />
            <p>
              <Link to={`/assistants/${id}/tests?run=${trialRun}`}>Open this run in Tests</Link>
            </p>
          </div>
        )}
      </form>
      {!isNew && record && <WebhookSwitches assistant={record as never} onChange={refs.reload} />}
      {!isNew && <WidgetKeys assistantId={Number(id)} />}
      {!isNew && <AssistantVersions key={versionsRound} assistantId={Number(id)} onRestored={refs.reload} />}
    </>
  );
}

function PostCallSchema({ rows, onChange, errors }: { rows: { name: string; type: string; description: string }[]; onChange(r: typeof rows): void; errors: Record<string, string[]> }) {
  const update = (i: number, key: 'name' | 'type' | 'description', value: string) => onChange(rows.map((r, j) => (j === i ? { ...r, [key]: value } : r)));
  return (
    <fieldset>
      <legend>Data to extract after the call</legend>
      {rows.map((r, i) => (
        <div className="row-fields" key={i}>
          <TextField label={`Field ${i + 1} name`} value={r.name} onChange={(v) => update(i, 'name', v)} errors={errors[`post_call_schema.${i}.name`]} />
          <Select
            label={`Field ${i + 1} type`}
            value={r.type}
            onChange={(v) => update(i, 'type', v)}
            errors={errors[`post_call_schema.${i}.type`]}
            options={['string', 'number', 'bool'].map((v) => ({ value: v, label: v }))}
          />
          <TextField label={`Field ${i + 1} description`} value={r.description} onChange={(v) => update(i, 'description', v)} errors={errors[`post_call_schema.${i}.description`]} />
          <button type="button" className="secondary" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            Remove field {i + 1}
          </button>
        </div>
      ))}
      {errors.post_call_schema && <p className="field-error" role="alert">{errors.post_call_schema.join(' ')}</p>}
      <button type="button" className="secondary" onClick={() => onChange([...rows, { name: '', type: 'string', description: '' }])}>
        Add a field to extract
      </button>
    </fieldset>
  );
}

/** The placeholders the message and prompt use, and which the assistant's own variables fill by default. */
function PlaceholderList({ texts, variables }: { texts: string[]; variables: string }) {
  const names = placeholders(...texts);
  let defaults: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(variables || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) defaults = parsed as Record<string, unknown>;
  } catch {
    // Not JSON yet (being typed): no defaults to show; the field says what is wrong on save.
  }
  return (
    <div className="hint" data-testid="placeholders" aria-live="polite">
      {names.length === 0 ? (
        'No placeholders: the message and prompt are the same on every call.'
      ) : (
        <>
          Placeholders used:{' '}
          {names.map((n, i) => (
            <span key={n}>
              {i > 0 && ', '}
              <code>{`{{${n}}}`}</code> {fills(defaults, n) ? `(default: ${String(defaults[n])})` : '(no default)'}
            </span>
          ))}
          . Each call fills them from its variables (a lead's, or those a call is placed with); one that stays empty is left out of what is spoken.
        </>
      )}
    </div>
  );
}
