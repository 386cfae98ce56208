// JSON written by the database, for an answer on the hottest path (the events list): each row
// comes back as its JSON text, so the request builds no row objects and never encodes them again.
// The issue 21 profile of a list request without caches had mapping rows to objects, building the
// answer's objects and JSON.stringify at about a third of the handler's time.
//
// SQLite writes compact JSON (json_object). PostgreSQL's json_build_object writes `"key" : value`
// with spaces, which is still the same JSON; joining to_json() of each value with the keys would be
// compact, but measured at twice the database's time for an events page (to_json looks up its
// argument's type on every call).
import { PostgresAdapter, sql, type Expression, type RawBuilder } from 'kysely';
import type { Db, Trx } from './index.ts';

/** One member of an object: a plain value, a condition as true/false, or JSON text embedded as it is. */
export type JsonField =
  | { kind: 'value'; expr: Expression<unknown> }
  | { kind: 'bool'; expr: Expression<unknown> }
  | { kind: 'json'; expr: Expression<unknown> };

/** A text, number or null, written as JSON. */
export const value = (expr: Expression<unknown>): JsonField => ({ kind: 'value', expr });
/** A condition, written `true` or `false` (`false` where it is null, as a missing flag reads). */
export const bool = (expr: Expression<unknown>): JsonField => ({ kind: 'bool', expr });
/**
 * Text that already is JSON (a column the app wrote with JSON.stringify, or an array from
 * `array`), embedded as it is; null is `null`.
 */
export const json = (expr: Expression<unknown>): JsonField => ({ kind: 'json', expr });

export interface JsonText {
  /** `{"key":value,...}` in the order given. */
  object(fields: Record<string, JsonField>): RawBuilder<unknown>;
  /**
   * The aggregate that makes the rows' `element` (an `object`) a JSON array in `orderBy`'s order,
   * or null over no rows (wrap it in coalesce(..., '[]') where it is a subquery).
   */
  array(element: Expression<unknown>, orderBy: readonly Expression<unknown>[]): RawBuilder<unknown>;
  /** An `object` as the text to send (PostgreSQL's driver would otherwise parse a json value). */
  text(value: Expression<unknown>): RawBuilder<string>;
}

const condition = (expr: Expression<unknown>) => sql`case when ${expr} then 1 else 0 end`;

/** `fn('key', value, ...)`, each field's value as `member` writes it for the database. */
const objectOf =
  (fn: 'json_object' | 'json_build_object', member: (field: JsonField) => Expression<unknown>) =>
  (fields: Record<string, JsonField>) =>
    sql`${sql.raw(fn)}(${sql.join(Object.entries(fields).map(([key, field]) => sql`${sql.lit(key)}, ${member(field)}`))})`;

const sqlite: JsonText = {
  // Text that is JSON must be marked as such (json()), or json_object would quote it as a string.
  object: objectOf('json_object', (field) =>
    field.kind === 'value'
      ? field.expr
      : field.kind === 'bool'
        ? sql`json(iif(${condition(field.expr)}, 'true', 'false'))`
        : sql`json(${field.expr})`,
  ),
  array: (element, orderBy) => sql`json_group_array(${element} order by ${sql.join(orderBy)})`,
  text: (value) => sql<string>`${value}`,
};

const postgres: JsonText = {
  object: objectOf('json_build_object', (field) =>
    field.kind === 'value'
      ? field.expr
      : field.kind === 'bool'
        ? sql`${condition(field.expr)} = 1`
        : sql`(${field.expr})::json`,
  ),
  array: (element, orderBy) => sql`json_agg(${element} order by ${sql.join(orderBy)})`,
  text: (value) => sql<string>`(${value})::text`,
};

/** The JSON writer of `db`'s database. */
export function jsonText(db: Db | Trx): JsonText {
  return db.getExecutor().adapter instanceof PostgresAdapter ? postgres : sqlite;
}
