/**
 * The one table that turns errors of the layers below the API into HTTP answers (the routes
 * that meet them, make_call and the sandbox's inbound call, test the answers end to end).
 */
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/api/toolkit/errors.js';
import { CallLimitError } from '../../src/calls/limits.js';
import { AssistantMissingError } from '../../src/calls/types.js';
import { domainErrorToHttp } from '../../src/http/domain-errors.js';

describe('domainErrorToHttp', () => {
  it('answers a used-up call limit 429 with its message', () => {
    const answer = domainErrorToHttp(new CallLimitError(3));
    expect(answer).toBeInstanceOf(HttpError);
    expect([answer!.statusCode, answer!.body()]).toEqual([429, { message: 'Too many calls in parallel: your account allows 3 at a time.' }]);
  });

  it('answers a missing assistant 404 without the internal detail', () => {
    const answer = domainErrorToHttp(new AssistantMissingError('assistant 7 of user 9 not found'));
    expect([answer!.statusCode, answer!.body()]).toEqual([404, { message: 'Assistant not found' }]);
  });

  it('leaves every other error to the rest of the error handler', () => {
    for (const err of [new Error('boom'), new HttpError(422, 'x'), new TypeError('t'), 'text', null]) expect(domainErrorToHttp(err)).toBeNull();
  });
});
