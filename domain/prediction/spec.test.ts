import { expect } from 'chai';
import { DomainError } from '../decider.ts';
import { LAMBDA_RANGE, parsePredictionSpec, type PredictionSpecInput } from './spec.ts';

const base: PredictionSpecInput = { symbol: 'aapl', horizon: 5, model: 'ridge', features: { lagReturns: 3 } };

function refusal(input: PredictionSpecInput): DomainError {
  try {
    parsePredictionSpec(input);
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }
  expect.fail(`accepted ${JSON.stringify(input)}`);
}

describe('forecast requests', () => {
  it('normalises a ridge request: symbol upper case, default penalty, every feature named, no degree', () => {
    expect(parsePredictionSpec(base)).to.deep.equal({
      symbol: 'AAPL',
      horizon: 5,
      model: 'ridge',
      lambda: LAMBDA_RANGE.default,
      features: { lagReturns: 3, rsi: false, smaDistance: false, volume: false },
    });
  });

  it('gives a polynomial model degree 2 unless told otherwise', () => {
    expect(parsePredictionSpec({ ...base, model: 'poly' }).degree).to.equal(2);
    expect(parsePredictionSpec({ ...base, model: 'poly', degree: 3, lambda: 0 })).to.deep.include({
      degree: 3,
      lambda: 0,
    });
  });

  it('accepts the bounds of every range', () => {
    for (const horizon of [1, 20]) expect(parsePredictionSpec({ ...base, horizon }).horizon).to.equal(horizon);
    for (const lagReturns of [1, 10]) {
      expect(parsePredictionSpec({ ...base, features: { lagReturns } }).features.lagReturns).to.equal(lagReturns);
    }
    expect(parsePredictionSpec({ ...base, lambda: 1000 }).lambda).to.equal(1000);
    expect(parsePredictionSpec({ ...base, features: { rsi: true } }).features).to.deep.equal({
      lagReturns: 0,
      rsi: true,
      smaDistance: false,
      volume: false,
    });
  });

  const bad: [string, Partial<PredictionSpecInput>, string, string][] = [
    ['a bad symbol', { symbol: 'NOT A SYMBOL' }, 'invalid_symbol', 'symbol'],
    ['horizon 0', { horizon: 0 }, 'invalid_horizon', 'horizon'],
    ['horizon 21', { horizon: 21 }, 'invalid_horizon', 'horizon'],
    ['a fractional horizon', { horizon: 2.5 }, 'invalid_horizon', 'horizon'],
    ['a horizon in text', { horizon: '5' }, 'invalid_horizon', 'horizon'],
    ['an unknown model', { model: 'lasso' }, 'invalid_model', 'model'],
    ['degree 4', { model: 'poly', degree: 4 }, 'invalid_degree', 'degree'],
    ['degree 1', { model: 'poly', degree: 1 }, 'invalid_degree', 'degree'],
    ['a degree on a ridge model', { degree: 2 }, 'invalid_degree', 'degree'],
    ['a negative lambda', { lambda: -0.1 }, 'invalid_lambda', 'lambda'],
    ['lambda above 1000', { lambda: 1000.5 }, 'invalid_lambda', 'lambda'],
    ['lambda NaN', { lambda: Number.NaN }, 'invalid_lambda', 'lambda'],
    ['no features', { features: {} }, 'invalid_features', 'features'],
    ['features that are a list', { features: ['rsi'] }, 'invalid_features', 'features'],
    ['an unknown feature', { features: { rsi: true, macd: true } }, 'invalid_features', 'features.macd'],
    ['11 lags', { features: { lagReturns: 11 } }, 'invalid_lagReturns', 'features.lagReturns'],
    ['a flag that is not a boolean', { features: { rsi: 'yes' } }, 'invalid_features', 'features.rsi'],
  ];
  for (const [what, change, code, field] of bad) {
    it(`refuses ${what}, naming ${field}`, () => {
      const error = refusal({ ...base, ...change });
      expect(error.code).to.equal(code);
      expect(error.field).to.equal(field);
      expect(error.message.startsWith(field), error.message).to.equal(true);
    });
  }
});
