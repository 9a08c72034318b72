import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ValidationError } from '../../../src/api/toolkit/errors.js';
import { parseOrThrow, v } from '../../../src/api/toolkit/validation.js';

function errorsOf(schema: z.ZodType, data: unknown) {
  try {
    parseOrThrow(schema, data);
  } catch (err) {
    return (err as ValidationError).errors;
  }
  return null;
}

describe('Laravel-shaped validation messages', () => {
  const schema = z.object({
    name: v.string({ max: 5 }),
    timeout: v.int({ min: 1, max: 30 }).optional(),
    ratio: v.number({ min: 0, max: 1 }).optional(),
    method: v.enum(['GET', 'POST']).optional(),
    endpoint: v.url().optional(),
    id: v.id().optional(),
    items: v.array(z.object({ name: v.string({ min: 2, max: 32 }) })).optional(),
    tz: v.timezone().optional(),
  });

  it('reads "required" for missing and null fields', () => {
    expect(errorsOf(schema, {})).toEqual({ name: ['The name field is required.'] });
    expect(errorsOf(schema, { name: null })).toEqual({ name: ['The name field is required.'] });
  });

  it('names types, ranges, enums, URLs and nested items', () => {
    expect(
      errorsOf(schema, {
        name: 'toolong',
        timeout: 31,
        ratio: 1.5,
        method: 'FETCH',
        endpoint: 'not a url',
        items: [{ name: 'x' }],
        tz: 'Mars/Base',
      }),
    ).toEqual({
      name: ['The name field must not be greater than 5 characters.'],
      timeout: ['The timeout field must be between 1 and 30.'],
      ratio: ['The ratio field must be between 0 and 1.'],
      method: ['The selected method is invalid.'],
      endpoint: ['The endpoint field must be a valid URL.'],
      'items.0.name': ['The items.0.name field must be between 2 and 32 characters.'],
      tz: ['The tz field must be a valid timezone.'],
    });
  });

  it('takes integers as JSON numbers only, but ids also as digit strings', () => {
    expect(errorsOf(schema, { name: 'a', timeout: '10' })).toEqual({ timeout: ['The timeout field must be an integer.'] });
    expect(errorsOf(schema, { name: 'a', timeout: 10.5 })).toEqual({ timeout: ['The timeout field must be an integer.'] });
    expect(parseOrThrow(schema, { name: 'a', id: '12' }).id).toBe(12);
    expect(errorsOf(schema, { name: 'a', id: 'x12' })).toEqual({ id: ['The id field must be an integer.'] });
    expect(errorsOf(schema, { name: 'a', id: 1.5 })).toEqual({ id: ['The id field must be an integer.'] });
    expect(errorsOf(schema, { name: 'a', id: 0 })).toEqual({ id: ['The selected id is invalid.'] });
    expect(errorsOf(schema, { name: 'a', id: '-3' })).toEqual({ id: ['The selected id is invalid.'] });
    expect(errorsOf(schema, { name: 'a', id: 1 })).toBeNull();
  });

  it('accepts the edges', () => {
    expect(errorsOf(schema, { name: 'abcde', timeout: 1, ratio: 0, items: [{ name: 'ab' }], tz: 'Europe/Berlin' })).toBeNull();
    expect(errorsOf(schema, { name: 'a', timeout: 30, ratio: 1, items: [{ name: 'a'.repeat(32) }] })).toBeNull();
  });

  it('uses the operation top-level message', () => {
    try {
      parseOrThrow(schema, {}, 'Validation failed');
    } catch (err) {
      expect((err as ValidationError).body()).toEqual({ message: 'Validation failed', errors: { name: ['The name field is required.'] } });
    }
  });
});

describe('text PostgreSQL cannot store', () => {
  const schema = z.object({ name: v.string({ max: 50 }).optional(), variables: v.object().optional() });
  it('is refused as a format error, in strings and in free-form objects', () => {
    expect(errorsOf(schema, { name: 'a\u0000b' })).toEqual({ name: ['The name field format is invalid.'] });
    expect(errorsOf(schema, { name: 'broken \ud800 pair' })).toEqual({ name: ['The name field format is invalid.'] });
    expect(errorsOf(schema, { variables: { deep: ['ok', { x: 'nul\u0000' }] } })).toEqual({ variables: ['The variables field format is invalid.'] });
    expect(errorsOf(schema, { variables: { 'k\u0000': 1 } })).toEqual({ variables: ['The variables field format is invalid.'] });
  });
  it('accepts real surrogate pairs and ordinary text', () => {
    expect(errorsOf(schema, { name: 'emoji 😀 ü', variables: { a: 'ß', b: [1, '😀'] } })).toBeNull();
  });
});

describe('missing enum values', () => {
  it('read "required", not "selected ... invalid"', () => {
    const schema = z.object({ method: v.enum(['GET', 'POST']) });
    expect(errorsOf(schema, {})).toEqual({ method: ['The method field is required.'] });
    expect(errorsOf(schema, { method: 'PUT' })).toEqual({ method: ['The selected method is invalid.'] });
  });
});

describe('free-form objects', () => {
  const schema = z.object({ variables: v.object().optional() });
  it('read an empty array (PHP clients) as an empty object, but refuse other arrays and scalars', () => {
    expect(parseOrThrow(schema, { variables: [] }).variables).toEqual({});
    expect(errorsOf(schema, { variables: [1] })).toEqual({ variables: ['The variables field must be an object.'] });
    expect(errorsOf(schema, { variables: 'x' })).toEqual({ variables: ['The variables field must be an object.'] });
  });
});
