import { expect } from 'chai';
import { finiteExtent } from './extent.ts';

describe('finiteExtent', () => {
  it('answers the lowest and highest finite values, leaving out NaN and the infinities', () => {
    expect(finiteExtent([3, NaN, -2, Infinity, 7, -Infinity])).to.deep.equal({ lo: -2, hi: 7 });
    expect(finiteExtent(new Set([5]))).to.deep.equal({ lo: 5, hi: 5 });
  });

  it('answers null without a finite value', () => {
    expect(finiteExtent([])).to.equal(null);
    expect(finiteExtent([NaN, Infinity])).to.equal(null);
  });
});
