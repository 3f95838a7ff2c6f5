import { expect } from 'chai';
import { fieldRefusal, refusalMarks, refusalParts } from './fieldRefusal.ts';

describe('fieldRefusal', () => {
  const labels = { symbol: 'Symbol', lots: 'Lots sold' };

  it('names the field refused by its label', () => {
    expect(fieldRefusal('body.symbol: unknown symbol ZZZZ', labels)).to.deep.equal({
      field: 'symbol',
      own: 'symbol',
      text: 'Symbol: unknown symbol ZZZZ',
    });
    expect(fieldRefusal('body.lots[0].quantity: is more than the lot holds', labels)).to.deep.equal({
      field: 'lots',
      own: 'lots',
      text: 'Lots sold: is more than the lot holds',
    });
    expect(fieldRefusal('params.symbol: unknown symbol ZZZZ', labels).text).to.equal('Symbol: unknown symbol ZZZZ');
  });

  it('leaves out the path of a field the form has no label for, and keeps a refusal naming none as it is', () => {
    expect(fieldRefusal('body.id: 4 shares of the 2024-01-10 lot of AAPL were sold', labels)).to.deep.equal({
      field: 'id',
      own: null,
      text: '4 shares of the 2024-01-10 lot of AAPL were sold',
    });
    expect(fieldRefusal('body[0]: unknown symbol ZZZZ', labels)).to.deep.equal({
      field: null,
      own: null,
      text: 'unknown symbol ZZZZ',
    });
    expect(fieldRefusal('Too many attempts: wait a moment and try again', labels)).to.deep.equal({
      field: null,
      own: null,
      text: 'Too many attempts: wait a moment and try again',
    });
    expect(fieldRefusal('body.toString: x', {}), 'no label from the prototype').to.include({ own: null, text: 'x' });
  });
});

describe('refusalParts', () => {
  it('takes a refusal apart: the part of the request, the dotted path within it, and the reason', () => {
    const cases: [string, [string, string, string] | null][] = [
      ['body.lots[0].quantity: must be positive', ['body', 'lots.0.quantity', 'must be positive']],
      ['body.condition.upper: must be above lower (190)', ['body', 'condition.upper', 'must be above lower (190)']],
      ['params.symbol : unknown symbol ZZZZ', ['params', 'symbol', 'unknown symbol ZZZZ']],
      ['body: the connection closed', ['body', '', 'the connection closed']],
      ['Not found', null],
      ['bodyguard: x', null],
    ];
    for (const [message, parts] of cases) {
      const expected = parts && { part: parts[0], path: parts[1], reason: parts[2] };
      expect(refusalParts(message), message).to.deep.equal(expected);
    }
  });
});

describe('refusalMarks', () => {
  it('marks a refused control invalid and described by the refusal, and leaves another unmarked', () => {
    expect(refusalMarks(true, 'login-error')).to.deep.equal({
      'aria-invalid': true,
      'aria-describedby': 'login-error',
    });
    expect(refusalMarks(false, 'login-error')).to.deep.equal({});
  });
});
