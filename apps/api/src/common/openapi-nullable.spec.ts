import { withoutTypeArrays } from './openapi-nullable';

describe('withoutTypeArrays (nestjs-zod #473/#474)', () => {
  it("rewrites zod >= 4.5's bare nullable field to the anyOf that nestjs-zod converts to nullable", () => {
    expect(withoutTypeArrays({ type: ['string', 'null'], description: 'when it expires' })).toEqual({
      schema: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'when it expires' },
      changed: true,
    });
  });

  it('keeps every type of a union, at any depth', () => {
    const { schema, changed } = withoutTypeArrays({
      type: 'object',
      properties: { inner: { type: 'array', items: { type: ['string', 'number', 'null'] } } },
    });
    expect(changed).toBe(true);
    expect(schema).toEqual({
      type: 'object',
      properties: { inner: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] } } },
    });
  });

  it('leaves schemas without type arrays as they are (a property named `type` included)', () => {
    const plain = { type: 'object', properties: { type: { type: 'string', enum: ['a', 'b'] } }, required: ['type'] };
    expect(withoutTypeArrays(plain)).toEqual({ schema: plain, changed: false });
  });
});
