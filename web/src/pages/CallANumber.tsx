/**
 * "Call a number" on an assistant's page: dials a number with the assistant (POST
 * /api/user/make_call), with a field for each placeholder its message and prompt use, and says
 * before dialling which of them stay empty. The call's page then fills in live.
 */
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { ErrorBanner } from '../ui/common';
import { TextField } from '../ui/fields';
import { useSubmit } from '../ui/hooks';
import { fills } from '../ui/placeholders';

export function CallANumber({ assistantId, names, defaults }: { assistantId: number; names: string[]; defaults: Record<string, unknown> }) {
  const api = useApi();
  const [phone, setPhone] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [placed, setPlaced] = useState<number | null>(null);
  const submit = useSubmit();
  const empty = names.filter((n) => !values[n]?.trim() && !fills(defaults, n));

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setPlaced(null);
    const variables = Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== ''));
    const res = await submit.run(() => unwrap(api.POST('/api/user/make_call', { body: { phone_number: phone.trim(), assistant_id: assistantId, variables } as never })));
    if (res) setPlaced((res as { call_id: number }).call_id);
  };

  return (
    <section className="panel" aria-labelledby="call-number-heading">
      <h2 id="call-number-heading">Call a number</h2>
      <form onSubmit={onSubmit} noValidate className="inline-form">
        <TextField label="Number to call" value={phone} onChange={setPhone} errors={submit.fieldErrors.phone_number} hint="E.164, e.g. +4915123456789" />
        {names.map((n) => (
          <TextField
            key={n}
            label={`Value for {{${n}}}`}
            value={values[n] ?? ''}
            onChange={(v) => setValues({ ...values, [n]: v })}
            hint={fills(defaults, n) ? `Empty: the assistant's default (${String(defaults[n])}).` : undefined}
          />
        ))}
        {empty.length > 0 && (
          <p className="callout" role="status" data-testid="call-warnings">
            {empty.map((n) => `{{${n}}}`).join(', ')} {empty.length === 1 ? 'has' : 'have'} no value: the call will leave {empty.length === 1 ? 'it' : 'them'} out of what
            is said.
          </p>
        )}
        <button type="submit" disabled={submit.busy || phone.trim() === ''}>
          {submit.busy ? 'Calling…' : 'Call this number'}
        </button>
        <ErrorBanner error={submit.error} />
        {placed !== null && (
          <p className="notice" role="status">
            Calling. <Link to={`/calls/${placed}`}>Follow call #{placed}</Link> as it runs.
          </p>
        )}
      </form>
    </section>
  );
}
