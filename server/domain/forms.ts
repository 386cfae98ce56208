// Answers to a form (a tier's checkout form today; a segment's application form uses the same
// field definitions) checked against its schema. One function, so every form in the product
// agrees on what "required", "email" or "select" mean.
import type { FormField } from '../../contract/resources.ts';

export type FormAnswers = Record<string, unknown>;

export type FormCheck =
  | { ok: true; answers: FormAnswers }
  /** Required fields left empty: the spec's 422 "required form fields missing". */
  | { ok: false; kind: 'missing'; fieldIds: string[] }
  /** A value of the wrong type or shape, or a field the form does not have: 400. */
  | { ok: false; kind: 'invalid'; fieldId: string; reason: string };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9][0-9 ().-]{4,22}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DEFAULT_MAX = { short_text: 500, long_text: 10_000 } as const;

const isEmpty = (v: unknown) =>
  v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);

function checkValue(field: FormField, value: unknown): string | null {
  switch (field.type) {
    case 'short_text':
    case 'long_text': {
      if (typeof value !== 'string') return 'must be text';
      const max = field.maxLength ?? DEFAULT_MAX[field.type];
      return value.length > max ? `must be at most ${max} characters` : null;
    }
    case 'email':
      return typeof value === 'string' && value.length <= 254 && EMAIL.test(value) ? null : 'must be an e-mail address';
    case 'phone':
      return typeof value === 'string' && PHONE.test(value) ? null : 'must be a phone number';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'url': {
      if (typeof value !== 'string' || value.length > 2000) return 'must be an http(s) URL';
      try {
        const { protocol } = new URL(value);
        return protocol === 'http:' || protocol === 'https:' ? null : 'must be an http(s) URL';
      } catch {
        return 'must be an http(s) URL';
      }
    }
    case 'date': {
      if (typeof value !== 'string' || !DATE.test(value)) return 'must be a date (YYYY-MM-DD)';
      const d = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value) ? null : 'must be a real date';
    }
    case 'select':
      return typeof value === 'string' && (field.options ?? []).includes(value) ? null : 'must be one of the options';
    case 'multi_select':
      return Array.isArray(value) &&
        value.every((v) => typeof v === 'string' && (field.options ?? []).includes(v)) &&
        new Set(value).size === value.length
        ? null
        : 'must be a list of distinct options';
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'must be true or false';
  }
}

/**
 * Checks `answers` against `schema`. Empty optional answers are dropped; a required checkbox must
 * be ticked (true), as a consent box is.
 */
export function checkFormAnswers(schema: readonly FormField[], answers: unknown): FormCheck {
  if (answers !== undefined && answers !== null && (typeof answers !== 'object' || Array.isArray(answers))) {
    return { ok: false, kind: 'invalid', fieldId: '', reason: 'must be an object keyed by field id' };
  }
  const given = (answers ?? {}) as FormAnswers;
  const byId = new Map(schema.map((f) => [f.id, f]));
  for (const id of Object.keys(given)) {
    if (!byId.has(id)) return { ok: false, kind: 'invalid', fieldId: id, reason: 'is not a field of this form' };
  }
  const missing = schema.filter(
    (f) => f.required && (isEmpty(given[f.id]) || (f.type === 'checkbox' && given[f.id] === false)),
  );
  if (missing.length) return { ok: false, kind: 'missing', fieldIds: missing.map((f) => f.id) };
  const out: FormAnswers = {};
  for (const field of schema) {
    const value = given[field.id];
    if (isEmpty(value)) continue;
    const problem = checkValue(field, value);
    if (problem) return { ok: false, kind: 'invalid', fieldId: field.id, reason: problem };
    out[field.id] = typeof value === 'string' ? value.trim() : value;
  }
  return { ok: true, answers: out };
}
