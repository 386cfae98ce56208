// A form as data, shared by <svc-rsvp> (tier forms) and <svc-apply> (segment forms): what the
// visitor typed, what is wrong with it (checked here first, then by the server), the answers it
// becomes, and a server refusal mapped back onto the field it names. Every field has a key that is
// also the server's `extras.field` for it (`email`, `formAnswers.<id>`, `answers.<id>`), so a
// server error lands next to the field it is about.
//
// Not in the runtime chunk (vite.config.ts keeps widgets/lib/forms/ out of it): only the widgets
// with a form download it, as a chunk of its own they share.
import type { FormField } from '../../../contract/resources.ts';
import type { ActionError } from './actions.ts';

export type Value = string | string[] | boolean;
export type Values = Record<string, Value>;
export type Errors = Record<string, string>;

export interface FieldSpec {
  key: string;
  field: FormField;
  /** The `autocomplete` token for the browser's autofill, when one fits. */
  autocomplete?: string;
}

/** `formAnswers.diet`, `answers.email`: the key of a form field under the body property `prefix`. */
export const keyOf = (prefix: string, id: string): string => `${prefix}.${id}`;

/** The same patterns as the server's form check (server/domain/forms.ts), so both agree. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9][0-9 ().-]{4,22}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const AUTOCOMPLETE: Partial<Record<FormField['type'], string>> = { email: 'email', phone: 'tel', url: 'url' };

/** A form field as a FieldSpec under `prefix`, with the autofill token its type suggests. */
export function specOf(prefix: string, field: FormField, autocomplete = AUTOCOMPLETE[field.type]): FieldSpec {
  return { key: keyOf(prefix, field.id), field, autocomplete };
}

export const isBlank = (v: Value | undefined): boolean =>
  v === undefined || v === false || (typeof v === 'string' ? v.trim() === '' : Array.isArray(v) && v.length === 0);

/** Trimmed text of a value; '' for anything else. */
export const textOf = (v: Value | undefined): string => (typeof v === 'string' ? v.trim() : '');

export const isEmail = (text: string): boolean => EMAIL.test(text) && text.length <= 254;

function httpUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** What is wrong with one value by its field's type and rules, in words for the visitor; null when nothing is. */
export function checkValue(spec: FieldSpec, value: Value | undefined): string | null {
  const { field } = spec;
  if (isBlank(value)) {
    if (!field.required) return null;
    if (field.type === 'checkbox') return 'Tick this box to continue.';
    if (field.type === 'select') return 'Choose an option.';
    if (field.type === 'multi_select') return 'Choose at least one option.';
    return 'This field is required.';
  }
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (field.maxLength && text.length > field.maxLength) return `Use at most ${field.maxLength} characters.`;
  switch (field.type) {
    case 'email':
      return isEmail(text) ? null : 'Enter an e-mail address like name@example.com.';
    case 'phone':
      return PHONE.test(text) ? null : 'Enter a phone number, like +1 206 555 0100.';
    case 'number':
      return Number.isFinite(Number(text)) ? null : 'Enter a number.';
    case 'url':
      return httpUrl(text) ? null : 'Enter a web address starting with https://.';
    case 'date':
      return DATE.test(text) && !Number.isNaN(Date.parse(text)) ? null : 'Enter a date.';
    default:
      return null;
  }
}

/** Every problem, by field key; empty when the form can be sent. */
export function checkEvery(
  fields: readonly FieldSpec[],
  values: Values,
  check: (spec: FieldSpec, value: Value | undefined) => string | null = checkValue,
): Errors {
  const errors: Errors = {};
  for (const spec of fields) {
    const problem = check(spec, values[spec.key]);
    if (problem) errors[spec.key] = problem;
  }
  return errors;
}

/**
 * A form's answers as the API takes them: text trimmed, numbers as numbers, a checkbox as
 * true/false, a multi-select as a list; empty answers left out (the server reads a missing
 * optional answer as unanswered, and would refuse an empty one of the wrong type).
 */
export function answersOf(schema: readonly FormField[], values: Values, prefix: string): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  for (const field of schema) {
    const value = values[keyOf(prefix, field.id)];
    if (field.type === 'checkbox') {
      answers[field.id] = value === true;
      continue;
    }
    if (isBlank(value)) continue;
    if (Array.isArray(value)) answers[field.id] = [...value];
    else if (typeof value === 'string')
      answers[field.id] = field.type === 'number' ? Number(value.trim()) : value.trim();
  }
  return answers;
}

/** "formAnswers.diet must be one of the options" -> "Must be one of the options." */
export function fieldMessage(field: string, message: string): string {
  const rest = message.startsWith(field) ? message.slice(field.length).replace(/^[:\s]+/, '') : message;
  if (!rest) return 'Check this field.';
  const sentence = rest.charAt(0).toUpperCase() + rest.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

export interface FormProblem {
  /** Messages to show next to fields, by field key. */
  fields: Errors;
  /** A message for the whole form, when the problem is not one field's (or that field is not shown). */
  message: string | null;
}

/**
 * The failures every action shares, that belong to no field: the network, the rate limit, and a
 * page whose origin the community has not listed (a site owner's fix, which the install doctor
 * spells out in the console; the visitor only needs to know it is not them).
 */
export function transportProblem(error: ActionError): FormProblem | null {
  if (error.status === 0)
    return { fields: {}, message: "We couldn't reach the server. Check your connection and try again." };
  if (error.code === 'ORIGIN_NOT_ALLOWED')
    return { fields: {}, message: "This site isn't set up for this yet, so nothing was sent." };
  if (error.status === 429) return { fields: {}, message: 'Too many attempts. Please wait a minute and try again.' };
  return null;
}

/**
 * A 400/422 naming shown fields: every missing one (`extras.fields`, ids under `prefix`) marked
 * required, else the one `extras.field` names, in words for the visitor. Null when it names none
 * that is shown.
 */
export function fieldProblem(
  error: ActionError,
  keys: readonly string[],
  prefix: string,
  missingStatus: number,
): FormProblem | null {
  const { status, code, extras } = error;
  const shown = new Set(keys);
  if (status === missingStatus && extras.fields?.length) {
    const fields: Errors = {};
    for (const id of extras.fields)
      if (shown.has(keyOf(prefix, id))) fields[keyOf(prefix, id)] = 'This field is required.';
    if (Object.keys(fields).length) return { fields, message: null };
  }
  if ((status === 400 || status === 422) && extras.field && shown.has(extras.field)) {
    const message =
      code === 'INVALID_EMAIL'
        ? 'Enter an e-mail address like name@example.com.'
        : fieldMessage(extras.field, error.message);
    return { fields: { [extras.field]: message }, message: null };
  }
  return null;
}

export const SERVER_TROUBLE = 'Something went wrong on our side. Please try again.';
