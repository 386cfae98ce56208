// The booking form as data: which fields a tier asks for and the request body it becomes. What is
// shared with other forms (checks by type, answers, server errors on fields) is in
// widgets/lib/forms/form.ts; the tier's own rules (the quantity, seats left) are here.
import type { FormField, Tier } from '../../contract/resources.ts';
import type { ActionError } from '../lib/forms/actions.ts';
import {
  answersOf,
  checkEvery,
  checkValue,
  fieldProblem,
  keyOf,
  SERVER_TROUBLE,
  specOf,
  textOf,
  transportProblem,
  type Errors,
  type FieldSpec,
  type Value,
  type Values,
} from '../lib/forms/form.ts';
import { isFree, maxQuantity } from './tiers.ts';

export type { Errors, FieldSpec, Value, Values } from '../lib/forms/form.ts';

const PREFIX = 'formAnswers';
export const answerKey = (id: string): string => keyOf(PREFIX, id);

/**
 * The fields for a tier: the attendee's name (on the ticket), the e-mail for a free tier (where
 * the QR code goes; a paid checkout asks for it on the payment page, where the receipt goes
 * too), the quantity for a paid tier, then the tier's own form.
 */
export function fieldsFor(tier: Tier, schema: readonly FormField[]): FieldSpec[] {
  const fields: FieldSpec[] = [
    {
      key: 'name',
      field: { id: 'name', type: 'short_text', label: 'Your name', required: true, maxLength: 200 },
      autocomplete: 'name',
    },
  ];
  if (isFree(tier)) {
    fields.push({
      key: 'email',
      field: { id: 'email', type: 'email', label: 'E-mail', required: true, helpText: 'Your ticket is sent here.' },
      autocomplete: 'email',
    });
  } else {
    fields.push({ key: 'quantity', field: { id: 'quantity', type: 'number', label: 'Tickets', required: true } });
  }
  for (const field of schema) fields.push(specOf(PREFIX, field));
  return fields;
}

/** Starting values: one ticket, nothing else. */
export function initialValues(tier: Tier): Values {
  return isFree(tier) ? {} : { quantity: '1' };
}

/** What is wrong with one value, in words for the visitor; null when nothing is. */
export function checkField(spec: FieldSpec, value: Value | undefined, tier: Tier): string | null {
  if (spec.key === 'quantity' && typeof value === 'string' && value.trim() !== '') {
    const max = maxQuantity(tier);
    const n = Number(value.trim());
    return Number.isInteger(n) && n >= 1 && n <= max
      ? null
      : max === 1
        ? 'Only 1 ticket is left.'
        : `Choose from 1 to ${max} tickets.`;
  }
  return checkValue(spec, value);
}

/** Every problem, by field key; empty when the form can be sent. */
export function checkAll(fields: readonly FieldSpec[], values: Values, tier: Tier): Errors {
  return checkEvery(fields, values, (spec, value) => checkField(spec, value, tier));
}

/** The tier form's answers as the API takes them (see answersOf). */
export const toFormAnswers = (schema: readonly FormField[], values: Values): Record<string, unknown> =>
  answersOf(schema, values, PREFIX);

export interface RsvpRequest {
  tierId: string;
  name: string;
  email: string;
  formAnswers?: Record<string, unknown>;
}
export interface CheckoutRequest {
  tierId: string;
  quantity: number;
  name: string;
  successUrl: string;
  cancelUrl: string;
  formAnswers?: Record<string, unknown>;
}

export function rsvpRequest(tier: Tier, schema: readonly FormField[], values: Values): RsvpRequest {
  const answers = toFormAnswers(schema, values);
  return {
    tierId: tier.id,
    name: textOf(values.name),
    email: textOf(values.email),
    ...(schema.length ? { formAnswers: answers } : {}),
  };
}

export function checkoutRequest(
  tier: Tier,
  schema: readonly FormField[],
  values: Values,
  urls: { successUrl: string; cancelUrl: string },
): CheckoutRequest {
  const answers = toFormAnswers(schema, values);
  return {
    tierId: tier.id,
    quantity: Number(textOf(values.quantity)),
    name: textOf(values.name),
    ...urls,
    ...(schema.length ? { formAnswers: answers } : {}),
  };
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
  const { status, extras } = error;
  const transport = transportProblem(error);
  if (transport) return { ...transport, refreshTiers: false };
  if (status === 422 && extras.remaining !== undefined) {
    const left = extras.remaining;
    if (left > 0 && keys.includes('quantity')) {
      return {
        fields: { quantity: left === 1 ? 'Only 1 ticket is left.' : `Only ${left} tickets are left.` },
        message: null,
        refreshTiers: true,
      };
    }
    return { fields: {}, message: 'Sorry, this ticket has just sold out.', refreshTiers: true };
  }
  // Tickets answer missing form fields with 422 (submit to a segment uses 400).
  const onField = fieldProblem(error, keys, PREFIX, 422);
  if (onField) return { ...onField, refreshTiers: false };
  if (status >= 500) return { fields: {}, message: SERVER_TROUBLE, refreshTiers: false };
  // The server's own words: "This event is over.", "This tier is not on sale."...
  return { fields: {}, message: error.message, refreshTiers: status === 400 && extras.field === 'tierId' };
}
