import fc from 'fast-check';
import type { OpenAPIObject } from '@nestjs/swagger';
import { resolve, type Endpoint, type SchemaLike } from './openapi-endpoints';

// fast-check generators of the parts of a request to one endpoint of the OpenAPI document (body,
// query string, path ids, header values) for test/fuzz.test.ts: mostly values that fit the
// schema, so requests get past validation into the handlers, mixed with values that broke
// things before.

/** Text with the characters that broke things before: NUL, lone surrogates, newlines, commas, emoji, RTL. */
export const nastyText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      'a\u0000b',
      '\ud800',
      'x\udfff',
      '\n',
      'a,b',
      '🧠',
      '\u202e',
      'null',
      'true',
      '1e400',
      '-1',
      '0',
      '7d',
      'snake_key',
      'Office-City',
      'x'.repeat(300),
      '%FF',
      '../..',
      '__proto__',
      'constructor',
      '2026-01-01T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '2026-13-45T99:99:99Z',
      '9999-12-31T23:59:59+14:00',
    ),
  },
);

export const wildValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: nastyText },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, 1, -1, 0.5, 1.5, 2_147_483_648, Number.MAX_SAFE_INTEGER)) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.array(nastyText, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constant(Object.fromEntries([['__proto__', { polluted: true }]])) },
);

const isoTime = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());

/** Strings matching a pattern of the schema, when fast-check can generate them; else plain text. */
function patterned(pattern: string): fc.Arbitrary<string> | undefined {
  try {
    return fc.stringMatching(new RegExp(pattern)).filter((s) => s.length <= 120);
  } catch {
    return undefined;
  }
}

/**
 * A value for a schema: `clean` ones fit it (enums, bounds, patterns) so requests reach the
 * handlers; otherwise now and then anything at all.
 */
export function valueFor(doc: OpenAPIObject, raw: SchemaLike | undefined, depth = 0, clean = false, name = ''): fc.Arbitrary<unknown> {
  // The document does not always say a field is a time (zod's nullable datetimes come out oddly): go by the name.
  if (clean && /(_at|^from|^to)$/.test(name)) return isoTime;
  const schema = resolve(doc, raw);
  if (!schema || depth > 3) return clean ? fc.lorem({ maxCount: 3 }) : wildValue;
  const alt = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (alt && alt.length > 0) {
    const options = alt.map((s) => valueFor(doc, s, depth + 1, clean));
    return clean ? fc.oneof(...options) : fc.oneof(...options, wildValue);
  }
  let fitting: fc.Arbitrary<unknown> | undefined;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (schema.enum && schema.enum.length > 0) fitting = fc.constantFrom(...schema.enum);
  else if (type === 'string') {
    if (schema.format === 'date-time') fitting = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
    else if (schema.format === 'uuid') fitting = fc.uuid();
    else if (schema.pattern) fitting = patterned(schema.pattern) ?? fc.lorem({ maxCount: 3 });
    else fitting = fc.oneof(fc.lorem({ maxCount: 6 }), fc.string({ minLength: 1, maxLength: 30 }));
  } else if (type === 'number' || type === 'integer') {
    const min = schema.minimum ?? -1000;
    const max = schema.maximum ?? 1000;
    fitting = type === 'integer' ? fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, 2 ** 31 - 1)) }) : fc.double({ min, max, noNaN: true });
  } else if (type === 'boolean') fitting = fc.boolean();
  else if (type === 'array') fitting = fc.array(valueFor(doc, schema.items, depth + 1, clean), { maxLength: clean ? 3 : 4 });
  else if (type === 'object' || schema.properties) fitting = objectFor(doc, schema, depth + 1, clean);
  if (clean) return fitting ?? fc.lorem({ maxCount: 3 });
  return fitting ? fc.oneof({ weight: 3, arbitrary: fitting }, { weight: 1, arbitrary: wildValue }) : wildValue;
}

/**
 * An object of the schema's properties. Clean: every required one and some optional ones, each
 * fitting. Otherwise: any of them, fitting or wild, now and then an unknown one.
 */
export function objectFor(doc: OpenAPIObject, schema: SchemaLike, depth: number, clean = false): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return clean ? fc.constant({}) : fc.dictionary(nastyText, wildValue, { maxKeys: 3 });
  const record = fc.record(Object.fromEntries(props.map(([name, s]) => [name, valueFor(doc, s, depth, clean, name)])), {
    requiredKeys: clean ? (schema.required ?? []).filter((k) => props.some(([n]) => n === k)) : [],
  });
  if (clean) return record as fc.Arbitrary<Record<string, unknown>>;
  return fc.tuple(record, fc.option(fc.tuple(fc.constantFrom('colour', 'source', 'id', 'tenant_id', '__proto__', 'version'), wildValue), { freq: 5 })).map(([r, extra]) => {
    const out: Record<string, unknown> = { ...r };
    if (extra) Object.defineProperty(out, extra[0], { value: extra[1], enumerable: true, writable: true, configurable: true });
    return out;
  });
}

/** A body as the wire carries it: JSON of a (mostly) object, or raw text that may not be JSON at all. */
export type WireBody = { kind: 'json'; value: unknown } | { kind: 'raw'; text: string; contentType: string } | { kind: 'none' };

export function bodyFor(doc: OpenAPIObject, ep: Endpoint): fc.Arbitrary<WireBody> {
  const object = ep.body ? objectFor(doc, ep.body, 0) : fc.dictionary(nastyText, wildValue, { maxKeys: 3 });
  const clean = ep.body ? objectFor(doc, ep.body, 0, true) : fc.constant({});
  return fc.oneof(
    { weight: 8, arbitrary: object.map((value): WireBody => ({ kind: 'json', value })) },
    { weight: 4, arbitrary: clean.map((value): WireBody => ({ kind: 'json', value })) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value): WireBody => ({ kind: 'json', value })) },
    { weight: 1, arbitrary: fc.constant<WireBody>({ kind: 'none' }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('{"category":', '{"a":1e400}', '[]', 'null', '{"content":"\\u0000"}', '{"a":"\\ud800"}', '{'.repeat(50))),
          fc.constantFrom('application/json', 'application/json; charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', 'application/merge-patch+json'),
        )
        .map(([text, contentType]): WireBody => ({ kind: 'raw', text, contentType })),
    },
  );
}

/** Query parameters of the operation (fitting or wild values, sometimes repeated), plus now and then an unknown one. */
export function queryFor(doc: OpenAPIObject, ep: Endpoint): fc.Arbitrary<Record<string, string | string[]>> {
  const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v) ?? '');
  const param = (s: SchemaLike) =>
    fc.oneof(
      { weight: 4, arbitrary: valueFor(doc, s).map(asText) },
      { weight: 1, arbitrary: fc.array(valueFor(doc, s).map(asText), { minLength: 2, maxLength: 3 }) },
    );
  const known = fc.record(Object.fromEntries(ep.queryParams.map((p) => [p.name, param(p.schema)])), { requiredKeys: [] });
  const cleanText = (v: unknown): string | string[] => (Array.isArray(v) ? v.map(asText) : asText(v));
  const clean = fc.record(Object.fromEntries(ep.queryParams.filter((p) => p.name !== 'cursor').map((p) => [p.name, valueFor(doc, p.schema, 0, true, p.name).map(cleanText)])), {
    requiredKeys: ep.queryParams.filter((p) => p.required).map((p) => p.name),
  });
  type Query = [Record<string, string | string[] | undefined>, [string, string] | null];
  const noisy: fc.Arbitrary<Query> = fc.tuple(known, fc.option(fc.tuple(fc.constantFrom('categroy', 'x', 'limit', 'q', 'cursor'), nastyText), { freq: 6 }));
  const tidy: fc.Arbitrary<Query> = clean.map((q): Query => [q, null]);
  return fc.oneof({ weight: 2, arbitrary: tidy }, { weight: 3, arbitrary: noisy }).map(([q, extra]) => {
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(q)) if (v !== undefined) out[k] = v;
    if (extra) out[extra[0]] = extra[1];
    return out;
  });
}

export const headerText = fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));

export function pathIdFor(known: string[], deleting: boolean, created: string[]): fc.Arbitrary<string> {
  const ids: fc.Arbitrary<string>[] = [
    // Ids of memories and minds the fuzz run itself created: deletes and updates of those reach the handlers.
    fc.nat().map((i) => created[i % Math.max(1, created.length)] ?? '00000000-0000-0000-0000-000000000000'),
    fc.uuid().map((s) => s),
    fc.constantFrom('00000000-0000-0000-0000-000000000000', 'not-a-uuid', '1', 'null', '%FF', '%00', '..', 'a%2Fb', '%E2%80%AE', 'x'.repeat(300)),
    fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }).map((s) => {
      try {
        return encodeURIComponent(s);
      } catch {
        return '%ED%A0%80'; // a lone surrogate, percent-encoded as WTF-8
      }
    }),
  ];
  // Real ids make the request reach the handler; deletes never get them, so the fixture survives.
  if (!deleting && known.length > 0) ids.push(fc.constantFrom(...known), fc.constantFrom(...known));
  return fc.oneof(...ids);
}

export interface Case {
  auth: 'agent' | 'user' | 'user-no-mind' | 'user-other-mind' | 'garbage' | 'none';
  extraHeaders: Record<string, string>;
  ids: string[];
  query: Record<string, string | string[]>;
  body: WireBody;
}
