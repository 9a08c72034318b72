/**
 * Labelled form controls. Each shows the service's own validation messages for its field
 * (`errors`), tied to the control with aria-describedby, and marks the control invalid.
 */
import { useId, type ReactNode } from 'react';
import { humanize } from './messages';

interface Common {
  label: string;
  errors?: string[];
  hint?: ReactNode;
}

function Messages({ id, errors, hint }: { id: string; errors?: string[]; hint?: ReactNode }) {
  return (
    <>
      {hint && <span className="hint" id={`${id}-hint`}>{hint}</span>}
      {errors && errors.length > 0 && (
        <span className="field-error" id={`${id}-error`} role="alert">
          {errors.map(humanize).join(' ')}
        </span>
      )}
    </>
  );
}

const described = (id: string, errors?: string[], hint?: ReactNode) =>
  [hint ? `${id}-hint` : '', errors?.length ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;

export function TextField(
  props: Common & { value: string; onChange(v: string): void; type?: string; required?: boolean; multiline?: boolean; rows?: number; placeholder?: string; list?: string; name?: string },
) {
  const id = useId();
  const common = {
    id,
    name: props.name,
    value: props.value,
    required: props.required,
    placeholder: props.placeholder,
    'aria-invalid': props.errors?.length ? true : undefined,
    'aria-describedby': described(id, props.errors, props.hint),
  };
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.multiline ? (
        <textarea {...common} rows={props.rows ?? 4} onChange={(e) => props.onChange(e.target.value)} />
      ) : (
        <input {...common} type={props.type ?? 'text'} list={props.list} onChange={(e) => props.onChange(e.target.value)} />
      )}
      <Messages id={id} errors={props.errors} hint={props.hint} />
    </div>
  );
}

/** A number input whose value is kept as typed text (so "0." can be typed); the form converts it. */
export function NumberField(props: Common & { value: string; onChange(v: string): void; min?: number; max?: number; step?: number | 'any' }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        value={props.value}
        min={props.min}
        max={props.max}
        step={props.step ?? 'any'}
        aria-invalid={props.errors?.length ? true : undefined}
        aria-describedby={described(id, props.errors, props.hint)}
        onChange={(e) => props.onChange(e.target.value)}
      />
      <Messages id={id} errors={props.errors} hint={props.hint} />
    </div>
  );
}

export function Checkbox(props: Common & { checked: boolean; onChange(v: boolean): void }) {
  const id = useId();
  return (
    <div className="field checkbox">
      <input
        id={id}
        type="checkbox"
        checked={props.checked}
        aria-invalid={props.errors?.length ? true : undefined}
        aria-describedby={described(id, props.errors, props.hint)}
        onChange={(e) => props.onChange(e.target.checked)}
      />
      <label htmlFor={id}>{props.label}</label>
      <Messages id={id} errors={props.errors} hint={props.hint} />
    </div>
  );
}

export interface Option {
  value: string;
  label: string;
}

export function Select(props: Common & { value: string; onChange(v: string): void; options: Option[]; required?: boolean }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        required={props.required}
        aria-invalid={props.errors?.length ? true : undefined}
        aria-describedby={described(id, props.errors, props.hint)}
        onChange={(e) => props.onChange(e.target.value)}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <Messages id={id} errors={props.errors} hint={props.hint} />
    </div>
  );
}

/** A group of related controls with a visible legend. */
export function Group({ legend, children }: { legend: string; children: ReactNode }) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {children}
    </fieldset>
  );
}
