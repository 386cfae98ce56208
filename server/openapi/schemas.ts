// zod -> JSON Schema (draft 2020-12) for the OpenAPI document, with every `.meta({ id })` schema
// hoisted into `#/components/schemas`.
//
// Each zod schema is converted on its own, per side of the wire: `io: 'input'` for what clients
// send (params, query, bodies: defaults are optional, coercions and transforms show what is
// accepted) and `io: 'output'` for what the server answers. zod puts the id'd sub-schemas of one
// conversion under `$defs`; the collector gathers those from every conversion and names them
// only at the end, in `finalize()`, because a component can look different on the two sides (a
// transform, a default, a strict object) and that is known only once every conversion is in.
// The output side keeps the plain id (`DonationConfig`); an input side that differs from it
// gets `<id>Input`, and so does every input component that references such a one.
import { z } from 'zod';
import { documentedAs } from '../../contract/common.ts';
import type { JsonSchema } from './types.ts';

export type Io = 'input' | 'output';

const DEFS_PREFIX = '#/$defs/';
const COMPONENTS_PREFIX = '#/components/schemas/';
/** OpenAPI 3.1 restricts component keys to this alphabet. */
const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/;

interface Tracked {
  node: JsonSchema;
  io: Io;
}

export class SchemaCollector {
  private readonly defs: Record<Io, Map<string, JsonSchema>> = { input: new Map(), output: new Map() };
  private readonly tracked: Tracked[] = [];
  private finalized = false;

  /**
   * Converts one zod schema for one side of the wire. `where` names the place in the route table
   * for error messages. The returned schema still points at `#/$defs/...`; `finalize()` rewrites
   * those references in place, so keep using the returned object (or `track` copies made of it).
   */
  convert(schema: z.ZodType, io: Io, where: string): JsonSchema {
    this.assertOpen();
    const converted = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      // A transform's output has no JSON Schema; `{}` (any value) is the honest answer for it.
      unrepresentable: 'any',
      cycles: 'ref',
      reused: 'inline',
      override: ({ zodSchema, jsonSchema }) => {
        const shown = documentedAs.get(zodSchema as unknown as z.ZodType);
        if (!shown) return;
        for (const key of Object.keys(jsonSchema)) delete (jsonSchema as JsonSchema)[key];
        Object.assign(jsonSchema, shown);
      },
    }) as JsonSchema;
    // `$schema` is implied by the OpenAPI 3.1 dialect; `$defs` move to components.
    const { $schema: _dialect, $defs, ...root } = converted;
    for (const [id, def] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
      this.addDef(id, io === 'output' ? openObjects(def) : def, io, where);
    }
    const node = io === 'output' ? openObjects(root) : root;
    this.track(node, io);
    return node;
  }

  /** Registers a node derived from a converted schema so its references are rewritten too. */
  track(node: JsonSchema, io: Io): void {
    this.assertOpen();
    this.tracked.push({ node, io });
  }

  /** Follows a top-level `$ref` of a converted schema to its definition (before finalize). */
  deref(node: JsonSchema, io: Io): JsonSchema {
    const ref = node.$ref;
    if (typeof ref !== 'string' || !ref.startsWith(DEFS_PREFIX)) return node;
    const def = this.defs[io].get(decodePointer(ref.slice(DEFS_PREFIX.length)));
    if (!def) throw new Error(`unresolvable reference ${ref}`);
    return def;
  }

  /**
   * Names every component, rewrites the references of every converted schema to
   * `#/components/schemas/<name>` and returns the components, sorted by name.
   */
  finalize(): Record<string, JsonSchema> {
    this.assertOpen();
    this.finalized = true;
    const renamed = this.inputsThatDiffer();
    const nameFor = (id: string, io: Io) => (io === 'input' && renamed.has(id) ? `${id}Input` : id);

    const emitted: [string, JsonSchema, Io][] = [];
    for (const [id, def] of this.defs.output) emitted.push([id, def, 'output']);
    for (const [id, def] of this.defs.input) {
      const name = nameFor(id, 'input');
      // An input side identical to the output side shares the output component.
      if (this.defs.output.has(id) && name === id) continue;
      if (name !== id && (this.defs.output.has(name) || this.defs.input.has(name))) {
        throw new Error(`component name clash: "${id}" needs an input variant "${name}", which is already an id`);
      }
      emitted.push([name, def, 'input']);
    }

    for (const [, def, io] of emitted) rewriteRefs(def, (id) => nameFor(id, io));
    for (const { node, io } of this.tracked) rewriteRefs(node, (id) => nameFor(id, io));
    emitted.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(emitted.map(([name, def]) => [name, def]));
  }

  private addDef(id: string, def: JsonSchema, io: Io, where: string): void {
    if (id.startsWith('__schema')) {
      // zod extracts an anonymous recursive schema under a counter name that differs per conversion.
      throw new Error(`${where}: a recursive schema needs .meta({ id }) to become an OpenAPI component`);
    }
    if (!COMPONENT_NAME.test(id)) throw new Error(`${where}: "${id}" is not a valid OpenAPI component name`);
    const known = this.defs[io].get(id);
    if (known && canonical(known) !== canonical(def)) {
      throw new Error(`${where}: two different schemas share the component id "${id}"`);
    }
    if (!known) this.defs[io].set(id, def);
  }

  /**
   * Ids whose input component cannot share the output one: those that differ themselves, and
   * then (to a fixed point) those that reference a differing one, since their references would
   * point elsewhere.
   */
  private inputsThatDiffer(): Set<string> {
    const shared = [...this.defs.input.keys()].filter((id) => this.defs.output.has(id));
    const differ = new Set(
      shared.filter((id) => canonical(this.defs.input.get(id)!) !== canonical(this.defs.output.get(id)!)),
    );
    let grew = true;
    while (grew) {
      grew = false;
      for (const id of shared) {
        if (differ.has(id)) continue;
        if ([...refsOf(this.defs.input.get(id)!)].some((ref) => differ.has(ref))) {
          differ.add(id);
          grew = true;
        }
      }
    }
    return differ;
  }

  private assertOpen(): void {
    if (this.finalized) throw new Error('SchemaCollector is already finalized');
  }
}

/**
 * zod marks output objects `additionalProperties: false`. Responses must not promise that: v1
 * grows by adding fields (spec, Versioning), and a client validating against a closed schema
 * would break on the first addition. Inputs keep it, since writes reject unknown fields.
 */
function openObjects(schema: JsonSchema): JsonSchema {
  walk(schema, (node) => {
    if (node.additionalProperties === false) delete node.additionalProperties;
  });
  return schema;
}

function rewriteRefs(schema: JsonSchema, nameFor: (id: string) => string): void {
  walk(schema, (node) => {
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith(DEFS_PREFIX)) {
      node.$ref = COMPONENTS_PREFIX + encodePointer(nameFor(decodePointer(ref.slice(DEFS_PREFIX.length))));
    }
  });
}

function refsOf(schema: JsonSchema): Set<string> {
  const ids = new Set<string>();
  walk(schema, (node) => {
    if (typeof node.$ref === 'string' && node.$ref.startsWith(DEFS_PREFIX)) {
      ids.add(decodePointer(node.$ref.slice(DEFS_PREFIX.length)));
    }
  });
  return ids;
}

/** Visits every object inside a JSON value (schemas nest in objects and arrays alike). */
function walk(value: unknown, visit: (node: JsonSchema) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
  } else if (value !== null && typeof value === 'object') {
    visit(value as JsonSchema);
    for (const child of Object.values(value)) walk(child, visit);
  }
}

/** Key order is not meaningful in JSON Schema, so it must not make two schemas differ. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

// JSON Pointer segments (RFC 6901) escape `~` and `/`.
const decodePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');
const encodePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
