// One labelled form field, shared by <svc-rsvp> and <svc-apply>; styled by fields.css.
import type { FieldSpec, Value } from './form.ts';

export interface FieldProps {
  spec: FieldSpec;
  /** Unique per widget instance: ids only need to be unique in the shadow root, but stay stable. */
  idBase: string;
  value: Value | undefined;
  error: string | undefined;
  /** A whole-number input from 1 to this (a quantity). */
  max?: number;
  onChange(key: string, value: Value): void;
}

const INPUT_TYPE: Record<string, string> = { email: 'email', phone: 'tel', number: 'number', url: 'url', date: 'date' };

/** The required marker is decoration: the control's `required` is what assistive tech announces. */
const Marker = ({ required }: { required: boolean }) =>
  required ? (
    <span class="required" aria-hidden="true">
      {' '}
      *
    </span>
  ) : null;

/**
 * One labelled field: its control, help text and error message, tied together with `for` and
 * `aria-describedby`. A multi-select is a group of checkboxes under a legend.
 */
export function Field({ spec, idBase, value, error, max, onChange }: FieldProps) {
  const { key, field } = spec;
  const id = `${idBase}-${key.replace(/[^\w-]/g, '_')}`;
  const helpId = field.helpText ? `${id}-help` : null;
  const errorId = error ? `${id}-error` : null;
  const describedBy = [helpId, errorId].filter(Boolean).join(' ') || undefined;
  const invalid = error ? ('true' as const) : undefined;
  const text = typeof value === 'string' ? value : '';
  const set = (v: Value) => onChange(key, v);
  const help = helpId && (
    <p class="help" id={helpId}>
      {field.helpText}
    </p>
  );
  const problem = errorId && (
    <p class="field-error" part="field-error" id={errorId}>
      {error}
    </p>
  );

  if (field.type === 'multi_select') {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset class="field group" part="field" data-key={key} aria-describedby={describedBy}>
        <legend>
          {field.label}
          <Marker required={field.required} />
        </legend>
        {help}
        {(field.options ?? []).map((option, i) => (
          <label class="choice" key={option}>
            <input
              type="checkbox"
              id={i === 0 ? id : undefined}
              checked={chosen.includes(option)}
              onChange={(e) =>
                set(
                  (e.currentTarget as HTMLInputElement).checked
                    ? [...chosen, option]
                    : chosen.filter((o) => o !== option),
                )
              }
            />
            {option}
          </label>
        ))}
        {problem}
      </fieldset>
    );
  }

  if (field.type === 'checkbox') {
    return (
      <div class="field check" part="field" data-key={key}>
        <input
          type="checkbox"
          id={id}
          checked={value === true}
          required={field.required}
          aria-invalid={invalid}
          aria-describedby={describedBy}
          onChange={(e) => set((e.currentTarget as HTMLInputElement).checked)}
        />
        <label for={id}>
          {field.label}
          <Marker required={field.required} />
        </label>
        {help}
        {problem}
      </div>
    );
  }

  const common = {
    id,
    name: key,
    required: field.required,
    'aria-invalid': invalid,
    'aria-describedby': describedBy,
    onInput: (e: Event) => set((e.currentTarget as HTMLInputElement).value),
  };
  let control;
  if (field.type === 'long_text') {
    control = (
      <textarea {...common} rows={3} value={text} maxLength={field.maxLength} placeholder={field.placeholder} />
    );
  } else if (field.type === 'select') {
    control = (
      <select {...common} value={text}>
        <option value="">Choose…</option>
        {(field.options ?? []).map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  } else {
    const bounded = max !== undefined;
    control = (
      <input
        {...common}
        type={INPUT_TYPE[field.type] ?? 'text'}
        value={text}
        autocomplete={spec.autocomplete}
        inputMode={bounded ? 'numeric' : undefined}
        min={bounded ? 1 : undefined}
        max={max}
        maxLength={field.maxLength}
        placeholder={field.placeholder}
        spellcheck={field.type === 'email' || field.type === 'url' ? false : undefined}
      />
    );
  }
  return (
    <div class="field" part="field" data-key={key}>
      <label for={id}>
        {field.label}
        <Marker required={field.required} />
      </label>
      {help}
      {control}
      {problem}
    </div>
  );
}
