// The booking form as data: which fields a tier asks for, what the visitor typed, what is wrong
// with it (checked here first, then by the server), and the request body it becomes. Every
// field has a key that is also the server's `extras.field` for it (`name`, `email`, `quantity`,
// `formAnswers.<id>`), so a server error lands next to the field it is about.
import type { FormField, Tier } from '../../contract/resources.ts';
import type { ActionError } from './actions.ts';
import { isFree, maxQuantity } from './tiers.ts';

export type Value = string | string[] | boolean;
export type Values = Record<string, Value>;
export type Errors = Record<string, string>;

export interface FieldSpec {
  key: string;
  field: FormField;
  /** The `autocomplete` token for the browser's autofill, when one fits. */
  autocomplete?: string;
}

export const answerKey = (id: string): string => `formAnswers.${id}`;

/** The same patterns as the server's form check (server/domain/forms.ts), so both agree. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9][0-9 ().-]{4,22}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const AUTOCOMPLETE: Partial<Record<FormField['type'], string>> = { email: 'email', phone: 'tel', url: 'url' };

/**
 * The fields for a tier: the attendee's name (on the ticket), the e-mail for a free tier (where
 * the QR code goes; a paid checkout asks for it on the payment page, where the receipt goes
 * too), the quantity for a paid tier, then the tier's own form.
 */
export function fieldsFor(tier: Tier, schema: readonly FormField[]): FieldSpec[] {
  const fields: FieldSpec[] = [
    { key: 'name', field: { id: 'name', type: 'short_text', label: 'Your name', required: true, maxLength: 200 }, autocomplete: 'name' },
  ];
  if (isFree(tier)) {
    fields.push({ key: 'email', field: { id: 'email', type: 'email', label: 'E-mail', required: true, helpText: 'Your ticket is sent here.' }, autocomplete: 'email' });
  } else {
    fields.push({ key: 'quantity', field: { id: 'quantity', type: 'number', label: 'Tickets', required: true } });
  }
  for (const field of schema) fields.push({ key: answerKey(field.id), field, autocomplete: AUTOCOMPLETE[field.type] });
  return fields;
}

/** Starting values: one ticket, nothing else. */
export function initialValues(tier: Tier): Values {
  return isFree(tier) ? {} : { quantity: '1' };
}

const isBlank = (v: Value | undefined) => v === undefined || v === false || (typeof v === 'string' ? v.trim() === '' : Array.isArray(v) && v.length === 0);

function httpUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** What is wrong with one value, in words for the visitor; null when nothing is. */
export function checkField(spec: FieldSpec, value: Value | undefined, tier: Tier): string | null {
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
  if (spec.key === 'quantity') {
    const max = maxQuantity(tier);
    const n = Number(text);
    return Number.isInteger(n) && n >= 1 && n <= max ? null : max === 1 ? 'Only 1 ticket is left.' : `Choose from 1 to ${max} tickets.`;
  }
  if (field.maxLength && text.length > field.maxLength) return `Use at most ${field.maxLength} characters.`;
  switch (field.type) {
    case 'email': return EMAIL.test(text) && text.length <= 254 ? null : 'Enter an e-mail address like name@example.com.';
    case 'phone': return PHONE.test(text) ? null : 'Enter a phone number, like +1 206 555 0100.';
    case 'number': return Number.isFinite(Number(text)) ? null : 'Enter a number.';
    case 'url': return httpUrl(text) ? null : 'Enter a web address starting with https://.';
    case 'date': return DATE.test(text) && !Number.isNaN(Date.parse(text)) ? null : 'Enter a date.';
    default: return null;
  }
}

/** Every problem, by field key; empty when the form can be sent. */
export function checkAll(fields: readonly FieldSpec[], values: Values, tier: Tier): Errors {
  const errors: Errors = {};
  for (const spec of fields) {
    const problem = checkField(spec, values[spec.key], tier);
    if (problem) errors[spec.key] = problem;
  }
  return errors;
}

/**
 * The tier form's answers as the API takes them: text trimmed, numbers as numbers, a checkbox as
 * true/false, a multi-select as a list; empty answers left out (the server reads a missing
 * optional answer as unanswered, and would refuse an empty one of the wrong type).
 */
export function toFormAnswers(schema: readonly FormField[], values: Values): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  for (const field of schema) {
    const value = values[answerKey(field.id)];
    if (field.type === 'checkbox') {
      answers[field.id] = value === true;
      continue;
    }
    if (isBlank(value)) continue;
    if (Array.isArray(value)) answers[field.id] = [...value];
    else if (typeof value === 'string') answers[field.id] = field.type === 'number' ? Number(value.trim()) : value.trim();
  }
  return answers;
}

export interface RsvpRequest { tierId: string; name: string; email: string; formAnswers?: Record<string, unknown> }
export interface CheckoutRequest {
  tierId: string; quantity: number; name: string; successUrl: string; cancelUrl: string; formAnswers?: Record<string, unknown>;
}

const text = (v: Value | undefined) => (typeof v === 'string' ? v.trim() : '');

export function rsvpRequest(tier: Tier, schema: readonly FormField[], values: Values): RsvpRequest {
  const answers = toFormAnswers(schema, values);
  return { tierId: tier.id, name: text(values.name), email: text(values.email), ...(schema.length ? { formAnswers: answers } : {}) };
}

export function checkoutRequest(
  tier: Tier, schema: readonly FormField[], values: Values, urls: { successUrl: string; cancelUrl: string },
): CheckoutRequest {
  const answers = toFormAnswers(schema, values);
  return {
    tierId: tier.id, quantity: Number(text(values.quantity)), name: text(values.name), ...urls,
    ...(schema.length ? { formAnswers: answers } : {}),
  };
}

/** "formAnswers.diet must be one of the options" -> "Must be one of the options." */
function fieldMessage(field: string, message: string): string {
  const rest = message.startsWith(field) ? message.slice(field.length).replace(/^[:\s]+/, '') : message;
  if (!rest) return 'Check this field.';
  const sentence = rest.charAt(0).toUpperCase() + rest.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

export interface ServerProblem {
  /** Messages to show next to fields, by field key. */
  fields: Errors;
  /** A message for the whole form, when the problem is not one field's (or that field is not shown). */
  message: string | null;
  /** Seats changed under us: the tier list should be read again. */
  refreshTiers: boolean;
}

/** An action's failure, mapped back onto the form: next to the field it names when it can be. */
export function problemFrom(error: ActionError, keys: readonly string[]): ServerProblem {
  const { status, code, extras } = error;
  const shown = new Set(keys);
  if (status === 0) return { fields: {}, message: "We couldn't reach the server. Check your connection and try again.", refreshTiers: false };
  if (status === 429) return { fields: {}, message: 'Too many attempts. Please wait a minute and try again.', refreshTiers: false };
  if (status === 422 && extras.remaining !== undefined) {
    const left = extras.remaining;
    if (left > 0 && shown.has('quantity')) {
      return { fields: { quantity: left === 1 ? 'Only 1 ticket is left.' : `Only ${left} tickets are left.` }, message: null, refreshTiers: true };
    }
    return { fields: {}, message: 'Sorry, this ticket has just sold out.', refreshTiers: true };
  }
  if (status === 422 && extras.fields?.length) {
    const fields: Errors = {};
    for (const id of extras.fields) if (shown.has(answerKey(id))) fields[answerKey(id)] = 'This field is required.';
    if (Object.keys(fields).length) return { fields, message: null, refreshTiers: false };
  }
  if ((status === 400 || status === 422) && extras.field && shown.has(extras.field)) {
    const message = code === 'INVALID_EMAIL' ? 'Enter an e-mail address like name@example.com.' : fieldMessage(extras.field, error.message);
    return { fields: { [extras.field]: message }, message: null, refreshTiers: false };
  }
  if (status >= 500) return { fields: {}, message: 'Something went wrong on our side. Please try again.', refreshTiers: false };
  // The server's own words: "This event is over.", "This tier is not on sale."...
  return { fields: {}, message: error.message, refreshTiers: status === 400 && extras.field === 'tierId' };
}
