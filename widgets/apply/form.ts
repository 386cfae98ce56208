// The application form as data: the segment's form as the server reads it (its e-mail and name
// fields required, added when missing), the bodies sent, what check-email means for the visitor,
// and a refusal mapped back onto the form. Field keys are `answers.<id>`, the server's
// `extras.field` for them.
import type { FormField } from '../../contract/resources.ts';
import type { ActionError } from '../lib/forms/actions.ts';
import {
  answersOf,
  fieldProblem,
  isEmail,
  keyOf,
  SERVER_TROUBLE,
  specOf,
  textOf,
  transportProblem,
  type Errors,
  type FieldSpec,
  type Values,
} from '../lib/forms/form.ts';
import type { Cycle } from './segments.ts';

export const PREFIX = 'answers';

export interface ApplicationFields {
  fields: FieldSpec[];
  /** The form field sent as the schema (the added e-mail and name included). */
  schema: FormField[];
  emailKey: string;
  nameKey: string;
}

function freeId(taken: readonly FormField[], wanted: string): string {
  const ids = new Set(taken.map((f) => f.id));
  let id = wanted;
  for (let n = 2; ids.has(id); n += 1) id = `${wanted}_${n}`;
  return id;
}

/**
 * The server's rule (applicationForm in server/domain/applications.ts): the form's first e-mail
 * field and its first short-text field labelled with "name" are the applicant's address and
 * name, required whatever the form says; a form without one gets it, as `email` and `name`, first.
 */
export function applicationFields(schema: readonly FormField[]): ApplicationFields {
  const form = schema.map((f) => ({ ...f }));
  const added: FormField[] = [];
  let email = form.find((f) => f.type === 'email');
  if (!email) added.push((email = { id: freeId(form, 'email'), type: 'email', label: 'E-mail', required: true }));
  let name = form.find((f) => f.type === 'short_text' && /name/i.test(f.label));
  // Ids as the server makes them (e-mail first); shown name first, as people expect.
  if (!name)
    added.unshift(
      (name = {
        id: freeId([...form, ...added], 'name'),
        type: 'short_text',
        label: 'Your name',
        required: true,
        maxLength: 200,
      }),
    );
  email.required = true;
  name.required = true;
  const all = [...added, ...form];
  const fields = all.map((f) => specOf(PREFIX, f, f === email ? 'email' : f === name ? 'name' : undefined));
  return { fields, schema: all, emailKey: keyOf(PREFIX, email.id), nameKey: keyOf(PREFIX, name.id) };
}

export interface SubmitBody {
  answers: Record<string, unknown>;
  billingCycle?: Cycle;
  source?: string;
}

/** The submit body: answers by field id; the cycle only for a paid segment; the page's `source` attribute when set. */
export function submitBody(
  form: ApplicationFields,
  values: Values,
  cycle: Cycle | null,
  source: string | null,
): SubmitBody {
  return {
    answers: answersOf(form.schema, values, PREFIX),
    ...(cycle ? { billingCycle: cycle } : {}),
    ...(source?.trim() ? { source: source.trim().slice(0, 200) } : {}),
  };
}

/** The address to check, once it looks like one; null otherwise (nothing is asked for half an address). */
export const addressToCheck = (values: Values, form: ApplicationFields): string | null => {
  const email = textOf(values[form.emailKey]).toLowerCase();
  return isEmail(email) ? email : null;
};

export type EmailStatus = 'NONE' | 'PENDING' | 'PAYMENT_PENDING' | 'ACCEPTED' | 'REJECTED' | 'BANNED';

/**
 * What check-email's status tells the visitor before they submit; null when there is nothing to
 * say. `blocks`: the server would refuse the submit, so it is not sent.
 */
export function emailNotice(status: EmailStatus): { text: string; blocks: boolean } | null {
  if (status === 'ACCEPTED') return { text: "You're already a member with this address.", blocks: true };
  if (status === 'PENDING')
    return { text: 'An application from this address is already waiting for review.', blocks: true };
  if (status === 'PAYMENT_PENDING')
    return {
      text: 'An application from this address is waiting for payment: sending this form starts it again.',
      blocks: false,
    };
  return null;
}

export interface ApplyProblem {
  fields: Errors;
  message: string | null;
  /** The segment list changed under us (closed, or cycles changed): read it again. */
  refreshSegments: boolean;
}

/** A refusal of submit or checkout, mapped back onto the form: next to the field it is about when it can be. */
export function problemFrom(error: ActionError, keys: readonly string[], emailKey: string): ApplyProblem {
  const transport = transportProblem(error);
  if (transport) return { ...transport, refreshSegments: false };
  const { code, status, extras } = error;
  const shown = keys.includes(emailKey);
  if (code === 'ALREADY_MEMBER' && shown)
    return { fields: { [emailKey]: emailNotice('ACCEPTED')!.text }, message: null, refreshSegments: false };
  if (code === 'APPLICATION_PENDING' && shown)
    return { fields: { [emailKey]: emailNotice('PENDING')!.text }, message: null, refreshSegments: false };
  if (code === 'APPLICANT_BANNED')
    return { fields: {}, message: "This address can't apply to this community.", refreshSegments: false };
  if (code === 'FEATURE_NOT_ENABLED')
    return {
      fields: {},
      message: 'This community is invite-only: it does not take applications.',
      refreshSegments: false,
    };
  if (status === 400 && extras.field === 'billingCycle')
    return { fields: {}, message: 'Choose how you would like to pay.', refreshSegments: true };
  if (status === 400 && extras.field === 'segmentId')
    return { fields: {}, message: 'This membership is no longer open for applications.', refreshSegments: true };
  if (status === 404)
    return { fields: {}, message: 'This membership is no longer open for applications.', refreshSegments: true };
  // Submit answers missing fields with 400 (tickets use 422).
  const onField = fieldProblem(error, keys, PREFIX, 400);
  if (onField) return { ...onField, refreshSegments: false };
  if (status >= 500) return { fields: {}, message: SERVER_TROUBLE, refreshSegments: false };
  return { fields: {}, message: error.message, refreshSegments: false };
}
