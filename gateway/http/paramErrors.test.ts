import { expect } from 'chai';
import { DomainError } from '../../domain/decider.ts';
import { ApiError } from '../errors.ts';
import { restateIdRefusal } from './paramErrors.ts';

describe('refusals about what a path names', function () {
  const id = '7d444840-9dc0-11d1-b245-5ffdce74fad2';
  const params = { id };

  it('answers a missing object as a 404 naming params.id', function () {
    const restated = restateIdRefusal(new DomainError('not_found', `alertId ${id}: no such alert`, 'alertId'), params);
    expect(restated).to.be.instanceOf(ApiError);
    expect(restated).to.include({ status: 404, code: 'not_found', message: `params.id: no such alert ${id}` });
  });

  it('keeps the code of an object in a state that refuses the command, naming params.id', function () {
    for (const [code, reason] of [
      ['not_armed', 'the alert is triggered, not armed'],
      ['not_paused', 'the alert is armed, not paused'],
      ['expired', 'the alert expired at 2026-01-01T00:00:00.000Z'],
    ] as const) {
      const restated = restateIdRefusal(new DomainError(code, `alertId ${id}: ${reason}`, 'alertId'), params);
      expect(restated).to.be.instanceOf(DomainError);
      expect(restated).to.include({ code, field: 'params.id', message: `params.id: ${reason}` });
    }
  });

  it('answers as it is a refusal of another field, or on a route without an id', function () {
    const other = new DomainError('invalid_condition', 'condition.value: must be at least 0.01', 'condition.value');
    expect(restateIdRefusal(other, params)).to.equal(other);
    const noId = new DomainError('not_armed', `alertId ${id}: the alert is triggered, not armed`, 'alertId');
    expect(restateIdRefusal(noId, { symbol: 'AAPL' })).to.equal(noId);
    expect(restateIdRefusal(noId, undefined)).to.equal(noId);
    const plain = new Error('boom');
    expect(restateIdRefusal(plain, params)).to.equal(plain);
  });
});
