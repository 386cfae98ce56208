// fast-check arbitraries for input fuzzing: values generated from the JSON Schemas of the OpenAPI
// document (what an integrator sees), mostly valid so requests get past validation into the
// handlers and the database, with hostile leaves mixed in: NUL and other control characters, lone
// surrogates, huge and fractional numbers, wrong types, unknown fields. Used by input-fuzz.test.ts.
import fc from 'fast-check';
import type { JsonSchema } from '../../../server/openapi/types.ts';

/** JSON text inserted as is where this value stands (numbers JSON.stringify cannot write). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON.stringify that writes RawJson values verbatim. */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `\u2063raw${raws.length - 1}\u2063`;
    }
    return v;
  });
  return text === undefined ? '' : text.replace(/"\u2063raw(\d+)\u2063"/g, (_m, i: string) => raws[Number(i)]);
}

/** What PostgreSQL refuses in text and jsonb: NUL, and UTF-16 surrogates without their pair. */
const DB_REFUSED = ['\u0000', 'a\u0000b', 'Ana\u0000', '\ud800', 'lone \udfff low', 'a\ud83dz', '\udc00\ud800'];

/** Strings every text field must survive besides those: control characters, odd unicode, edge cases. */
const HOSTILE_TEXT = [
  '\u0001',
  '\u0007bell',
  'x\u0008y',
  '\u001b[31m',
  '\u001f',
  '\u007f',
  '\u0085',
  '\t',
  'two\nlines',
  'crlf\r\n',
  '\u000b\u000c',
  '\u202eevil',
  '\ufeffbom',
  '\u2028\u2029',
  '\uffff',
  '\ufffd',
  'e\u0301',
  '😀',
  '👩‍👩‍👧',
  'ﬃ',
  '٣',
  'İ',
  'ß',
  '',
  ' ',
  '   padded   ',
  'o\'neil"; drop table users; --',
  '%00',
  '%',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  'null',
  'NaN',
  '-1',
  '1e309',
  '0x10',
  'x'.repeat(5000),
];

/** Ordinary text around a hostile piece, so length and emptiness checks do not catch it first. */
const embedded = (pieces: string[]) =>
  fc
    .tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...pieces), fc.string({ maxLength: 8 }))
    .map(([a, b, c]) => a + b + c);

/** A string with control characters and unicode edge cases; half of them what PostgreSQL refuses. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...DB_REFUSED), weight: 2 },
  { arbitrary: embedded(DB_REFUSED), weight: 2 },
  { arbitrary: fc.constantFrom(...HOSTILE_TEXT), weight: 2 },
  { arbitrary: embedded(HOSTILE_TEXT), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 12 }), weight: 1 },
);

/** Numbers at and past every edge a column or a JavaScript number has. */
const HOSTILE_NUMBERS: unknown[] = [
  0,
  -1,
  1.5,
  -0.5,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 63),
  2 ** 64,
  1e21,
  1e308,
  -1e308,
  5e-324,
  new RawJson('1e400'),
  new RawJson('-1e400'),
  new RawJson('123456789012345678901234567890'),
  new RawJson('-0'),
];
export const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Any JSON value, for a field that expects something else. */
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  hostileNumber,
  hostileString,
  fc.constant([]),
  fc.constant({}),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 2 }),
);

export interface SchemaContext {
  /** `#/components/schemas` of the document, for `$ref`. */
  components: Record<string, JsonSchema>;
}

/**
 * A value for `schema`: valid most of the time, with now and then a hostile leaf anywhere. Few
 * enough that most values pass validation; withHostileLeaf then plants one deliberately.
 */
export function fromSchema(schema: JsonSchema, ctx: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') {
    const name = decodeURIComponent(schema.$ref.replace('#/components/schemas/', ''));
    const target = ctx.components[name];
    if (!target) throw new Error(`unresolvable ${schema.$ref}`);
    return fromSchema(target, ctx, depth + 1);
  }
  if (depth > 8) return fc.constant(null);
  const valid = validFromSchema(schema, ctx, depth);
  // Containers are not replaced wholesale as often: their leaves are where values go wrong.
  const container = 'properties' in schema || 'items' in schema || Array.isArray(schema.anyOf);
  if (container) return fc.oneof({ arbitrary: valid, weight: 40 }, { arbitrary: wrongType, weight: 1 });
  const hostile = isNumeric(schema) ? hostileNumber : hostileString;
  return fc.oneof(
    { arbitrary: valid, weight: 30 },
    { arbitrary: hostile, weight: 2 },
    { arbitrary: wrongType, weight: 1 },
  );
}

type JsonPath = (string | number)[];

/** Paths of the strings, numbers and booleans inside a value. */
function leafPaths(value: unknown, at: JsonPath = []): JsonPath[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leafPaths(v, [...at, i]));
  if (value !== null && typeof value === 'object' && !(value instanceof RawJson)) {
    return Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...at, k]));
  }
  return value === null ? [] : [at];
}

function replaceAt(value: unknown, path: JsonPath, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaceAt(v, rest, replacement) : v));
  const copy = { ...(value as Record<string, unknown>) };
  copy[head] = replaceAt(copy[head], rest, replacement);
  return copy;
}

/**
 * Mostly `arb`'s value with exactly one leaf made hostile (a string or number of the kinds above,
 * or a value of the wrong type): the rest stays valid, so the hostile value gets as far as
 * validation lets it, into the handler and the database when nothing refuses it.
 */
export function withHostileLeaf(arb: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return arb.chain((value) => {
    const leaves = leafPaths(value);
    if (leaves.length === 0) return fc.constant(value);
    const planted = fc
      .tuple(fc.constantFrom(...leaves), fc.oneof({ arbitrary: hostileString, weight: 4 }, hostileNumber, wrongType))
      .map(([path, bad]) => replaceAt(value, path, bad));
    return fc.oneof({ arbitrary: fc.constant(value), weight: 1 }, { arbitrary: planted, weight: 3 });
  });
}

function isNumeric(schema: JsonSchema): boolean {
  return schema.type === 'integer' || schema.type === 'number';
}

function validFromSchema(schema: JsonSchema, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches) return fc.oneof(...branches.map((b) => fromSchema(b, ctx, depth + 1)));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: bound(schema.minimum, -1e6), max: bound(schema.maximum, 1e6, true) });
    case 'number':
      return fc.double({
        min: bound(schema.minimum, -1e6),
        max: bound(schema.maximum, 1e6, true),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string':
      return stringFromSchema(schema);
    case 'array': {
      const items = schema.items ? fromSchema(schema.items as JsonSchema, ctx, depth + 1) : wrongType;
      const minLength = Number(schema.minItems ?? 0);
      return fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(Number(schema.maxItems ?? 4), 4)) });
    }
    case 'object':
      return objectFromSchema(schema, ctx, depth);
    default:
      return wrongType;
  }
}

/** Keeps generated numbers in a range where the interesting ones are; hostileNumber covers the rest. */
function bound(value: unknown, fallback: number, upper = false): number {
  if (typeof value !== 'number') return fallback;
  return upper ? Math.min(value, Math.max(fallback, 0) + 1e6) : Math.max(value, Math.min(fallback, 0) - 1e6);
}

function stringFromSchema(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = Number(schema.minLength ?? 0);
  const maxLength = Math.max(minLength, Math.min(Number(schema.maxLength ?? 40), 40));
  switch (schema.format) {
    case 'email':
      return fc.emailAddress();
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'uri':
      return fc.webUrl();
  }
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern)).map((s) => s.slice(0, Math.max(maxLength, minLength)));
  }
  return fc.string({ unit: 'grapheme', minLength, maxLength });
}

function objectFromSchema(schema: JsonSchema, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  const model = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, fromSchema(v, ctx, depth + 1)]));
  const known = fc.record(model, { requiredKeys: required.filter((k) => k in model) });
  const extra =
    schema.additionalProperties && typeof schema.additionalProperties === 'object'
      ? fc.dictionary(
          // Keys are strings whatever the schema says; hostile ones included.
          fc.oneof(
            schema.propertyNames ? stringFromSchema(schema.propertyNames as JsonSchema) : fc.string({ maxLength: 10 }),
            hostileString,
          ),
          fromSchema(schema.additionalProperties as JsonSchema, ctx, depth + 1),
          { maxKeys: 3 },
        )
      : // A field nobody declared, sometimes with a hostile name.
        fc.oneof(
          { arbitrary: fc.constant({}), weight: 12 },
          { arbitrary: fc.dictionary(hostileString, wrongType, { minKeys: 1, maxKeys: 1 }), weight: 1 },
        );
  return fc.tuple(known, extra).map(([k, e]) => ({ ...(e as object), ...(k as object) }));
}

/**
 * Percent-encodes every code point outside the unreserved set, lone surrogates included (as the
 * three bytes a careless encoder writes for them, which are not UTF-8): encodeURIComponent throws
 * on those, and a client sending raw bytes is exactly what a server must survive.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const ch of text) {
    if (/^[A-Za-z0-9\-._~]$/.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    const bytes =
      cp >= 0xd800 && cp <= 0xdfff
        ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)]
        : [...Buffer.from(ch, 'utf8')];
    out += bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

/** Already-encoded URL fragments no decoder accepts: truncated and overlong UTF-8, stray `%`. */
const BROKEN_ENCODINGS = [
  '%E0%A4',
  '%C3%28',
  '%FF',
  '%C0%AF',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%ZZ',
  '%',
  '%%',
  '%0',
  '%u0000',
];

/**
 * A path segment or query value as sent on the wire: mostly a well-formed value (`valid`, already
 * unencoded), sometimes an encoded hostile string or a broken encoding.
 */
export function urlComponent(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: valid.map(percentEncode), weight: 5 },
    { arbitrary: hostileString.map(percentEncode), weight: 4 },
    { arbitrary: fc.constantFrom(...BROKEN_ENCODINGS), weight: 1 },
    {
      arbitrary: fc
        .tuple(fc.string({ maxLength: 4 }), fc.constantFrom(...BROKEN_ENCODINGS))
        .map(([a, b]) => percentEncode(a) + b),
      weight: 1,
    },
  );
}

/** A query-parameter value as text: what the schema allows, written as a URL carries it. */
export function queryText(schema: JsonSchema, ctx: SchemaContext): fc.Arbitrary<string> {
  return fromSchema(schema, ctx).map((v) => {
    if (typeof v === 'string') return v;
    if (v instanceof RawJson) return v.text;
    return typeof v === 'object' ? toJsonText(v) : String(v);
  });
}
