// The slice of the OpenAPI 3.1 object model this project emits. Kept deliberately small: it types
// what document.ts writes and docs-page.ts reads, not the whole specification.

/** A JSON Schema (draft 2020-12, the dialect OpenAPI 3.1 uses) as produced by `z.toJSONSchema`. */
export type JsonSchema = { [keyword: string]: unknown };

/** `x-*` specification extensions are allowed on most OpenAPI objects. */
export type Extensions = { [extension: `x-${string}`]: unknown };

export interface RefObject {
  $ref: string;
}

export interface HeaderObject {
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  description?: string;
  required: boolean;
  schema: JsonSchema;
}

export interface ExampleObject {
  summary?: string;
  value: unknown;
}

export interface MediaTypeObject {
  schema: JsonSchema;
  examples?: Record<string, ExampleObject>;
}

export interface RequestBodyObject {
  description?: string;
  required: boolean;
  content: Record<string, MediaTypeObject>;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | RefObject>;
  content?: Record<string, MediaTypeObject>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface OperationObject extends Extensions {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security: SecurityRequirement[];
  parameters: ParameterObject[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject>;
}

export type PathItemObject = Partial<Record<'get' | 'post' | 'patch' | 'put' | 'delete', OperationObject>>;

export type SecuritySchemeObject = Extensions &
  (
    | { type: 'apiKey'; in: 'header' | 'cookie'; name: string; description: string }
    | { type: 'http'; scheme: 'bearer'; bearerFormat?: string; description: string }
  );

export interface TagObject {
  name: string;
  description: string;
}

export interface OpenApiDocument extends Extensions {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string } & Extensions;
  servers: { url: string; description?: string }[];
  tags: TagObject[];
  paths: Record<string, PathItemObject>;
  components: {
    schemas: Record<string, JsonSchema>;
    headers: Record<string, HeaderObject>;
    securitySchemes: Record<string, SecuritySchemeObject>;
  };
}
