import { expect } from 'chai';
import { project, recorded } from '../testing/inMemory.ts';
import { companyStatsProjection } from './companystats.projection.ts';

describe('company stats projection', () => {
  it("folds each user's statistics with the decider's evolve, unchanged by the same events twice", async () => {
    const events = [
      recorded('ada', 'CompanyStatAdded', { type: 'revenue', limit: 0, period: 'A' }),
      recorded('ada', 'CompanyStatAdded', { type: 'income', limit: 0, period: 'A' }),
      recorded('bob', 'CompanyStatAdded', { type: 'income', limit: 3, period: 'Q' }),
      recorded('ada', 'CompanyStatModified', { type: 'revenue', limit: 8, period: 'Q' }),
      recorded('ada', 'CompanyStatsReordered', { types: ['income', 'revenue'] }),
      recorded('ada', 'CompanyStatAdded', { type: 'grossprofit', limit: 1, period: 'A' }),
      recorded('ada', 'CompanyStatRemoved', { type: 'income' }),
    ];
    for (const run of [events, [...events, ...events]]) {
      const docs = await project(companyStatsProjection, run);
      expect(docs.get('ada')).to.deep.equal({
        stats: [
          { type: 'revenue', limit: 8, period: 'Q' },
          { type: 'grossprofit', limit: 1, period: 'A' },
        ],
      });
      expect(docs.get('bob')).to.deep.equal({ stats: [{ type: 'income', limit: 3, period: 'Q' }] });
    }
  });
});
