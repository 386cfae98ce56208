// Queries on every request's path (the API key lookup, an events page's tiers), built and compiled
// by Kysely once and run many times with new values. Building a query (its operation tree, frozen
// node by node) and compiling it to SQL cost more CPU than SQLite takes to run the small indexed
// queries of a list request (issue 21's profile), and their SQL never changes: only the values do.
// The SQL text is the same on every run, so the prepared statement is kept too (server/db/index.ts).
import { createQueryId, type Compilable, type CompiledQuery } from 'kysely';
import type { Db, Trx } from './index.ts';

/** Stands for an argument while the query is built: the compiled parameter that holds it. */
class Slot {
  constructor(
    readonly arg: number,
    readonly item: number | null,
  ) {}
}

interface Template {
  compiled: CompiledQuery;
  /** Each compiled parameter: a Slot to fill from the arguments, or a constant the builder wrote. */
  parameters: readonly unknown[];
}

type Arg = string | number | readonly (string | number)[];

/**
 * A query from `build`, compiled once per SQL dialect and per length of its list arguments (an
 * `in (...)` list compiles to as many parameters as it has items), then run with the arguments
 * given. `build` must use its arguments only as values (`where(col, '=', arg)`,
 * `where(col, 'in', list)`): while it builds, they are placeholders, not the real values.
 */
export function reusableQuery<A extends Arg[], R>(
  build: (db: Db, ...args: A) => Compilable<R>,
): (db: Db | Trx, ...args: A) => Promise<R[]> {
  const templates = new WeakMap<object, Map<string, Template>>();
  return async (db, ...args) => {
    // The adapter stands for the dialect: every Kysely of one database (and its transactions) shares it.
    const adapter = db.getExecutor().adapter;
    let byShape = templates.get(adapter);
    if (!byShape) templates.set(adapter, (byShape = new Map()));
    const shape = args.map((a) => (Array.isArray(a) ? a.length : '')).join(',');
    let template = byShape.get(shape);
    if (!template) {
      const slots = args.map((a, i) => (Array.isArray(a) ? a.map((_, j) => new Slot(i, j)) : new Slot(i, null)));
      const compiled = build(db as Db, ...(slots as unknown as A)).compile();
      // An argument the builder read instead of passing on as a value would be compiled in for good.
      const used = new Set(compiled.parameters.filter((p) => p instanceof Slot));
      if (slots.flat().some((slot) => !used.has(slot)))
        throw new Error('reusableQuery: every argument must be a value');
      template = { compiled, parameters: compiled.parameters };
      byShape.set(shape, template);
    }
    const parameters = template.parameters.map((p) =>
      p instanceof Slot ? (p.item === null ? args[p.arg] : (args[p.arg] as readonly unknown[])[p.item]) : p,
    );
    const result = await db.executeQuery<R>({ ...template.compiled, parameters, queryId: createQueryId() });
    return result.rows;
  };
}
