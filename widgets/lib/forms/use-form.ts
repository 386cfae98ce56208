// The state of a form while it is filled in, shared by <svc-rsvp> and <svc-apply>: what was
// typed, the message of each field and of the whole form, and the focus moved to the first field
// with a problem after a refused submit, so a screen reader reads its message out.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Errors, Value, Values } from './form.ts';

export function useForm() {
  const [values, setValues] = useState<Values>({});
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const focusKey = useRef<string | null>(null);

  useEffect(() => {
    // After a refused submit: the first field with a problem, so its message is read out.
    const key = focusKey.current;
    if (!key) return;
    focusKey.current = null;
    formRef.current?.querySelector<HTMLElement>(`[data-key="${key}"] :is(input, select, textarea)`)?.focus();
  });

  const change = (key: string, value: Value) => {
    setValues({ ...values, [key]: value });
    // A message goes once the field is edited; it comes back only if the next submit finds it wrong.
    if (errors[key]) {
      const rest = { ...errors };
      delete rest[key];
      setErrors(rest);
    }
  };

  /** Shows the refusal; the focus goes to the first key of `order` (the fields as laid out) with a message. */
  const fail = (found: Errors, message: string | null, order: readonly string[]) => {
    setErrors(found);
    setFormError(message);
    focusKey.current = order.find((k) => found[k]) ?? null;
  };

  return { values, setValues, errors, setErrors, formError, setFormError, formRef, change, fail };
}
