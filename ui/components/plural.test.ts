import { expect } from 'chai';
import { plural } from './plural.ts';

describe('a count with its noun', function () {
  it('is singular for one and plural otherwise, zero included', function () {
    expect(plural(1, 'stock')).to.equal('1 stock');
    expect(plural(2, 'stock')).to.equal('2 stocks');
    expect(plural(0, 'symbol')).to.equal('0 symbols');
    expect(plural(1, 'pattern day')).to.equal('1 pattern day');
  });

  it('takes an irregular plural', function () {
    expect(plural(1, 'company', 'companies')).to.equal('1 company');
    expect(plural(3, 'company', 'companies')).to.equal('3 companies');
  });
});
