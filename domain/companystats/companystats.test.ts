import { expect } from 'chai';
import { DomainError, fold } from '../decider.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  COMPANY_STAT_LIMIT_MAX,
  DEFAULT_COMPANY_STATS,
  companyStatsDecider,
  parseCompanyStats,
  type CompanyStat,
  type CompanyStatPeriod,
  type CompanyStatsCommand,
  type CompanyStatsEvent,
  type CompanyStatType,
} from './companystats.ts';

const stat = (type: CompanyStatType, limit = 0, period: CompanyStatPeriod = 'A'): CompanyStat => ({
  type,
  limit,
  period,
});
const save = (...stats: CompanyStat[]): CompanyStatsCommand => ({ type: 'SaveCompanyStats', data: { stats } });
const storeDefaults: CompanyStatsCommand = { type: 'StoreDefaultCompanyStats', data: {} };
const added = (s: CompanyStat): CompanyStatsEvent => ({ type: 'CompanyStatAdded', data: s });
const removed = (type: CompanyStatType): CompanyStatsEvent => ({ type: 'CompanyStatRemoved', data: { type } });
const modified = (s: CompanyStat): CompanyStatsEvent => ({ type: 'CompanyStatModified', data: s });
const reordered = (...types: CompanyStatType[]): CompanyStatsEvent => ({
  type: 'CompanyStatsReordered',
  data: { types },
});
const defaults = DEFAULT_COMPANY_STATS.map((s) => added(s));

describe('company stats decider', () => {
  describe('the defaults', () => {
    it('are revenue, grossprofit, income and earningspershare, each with limit 0 and period A', () => {
      expect(DEFAULT_COMPANY_STATS).to.deep.equal([
        stat('revenue'),
        stat('grossprofit'),
        stat('income'),
        stat('earningspershare'),
      ]);
    });

    it('are stored when the user has no statistics', () => {
      given(companyStatsDecider).when(storeDefaults).then(defaults);
    });

    it('are not stored again once the user has statistics', () => {
      given(companyStatsDecider, defaults).when(storeDefaults).thenNothing();
      given(companyStatsDecider, [added(stat('income', 5, 'Q'))])
        .when(storeDefaults)
        .thenNothing();
    });
  });

  describe('saving a list', () => {
    it('records every statistic of a first list as an addition', () => {
      given(companyStatsDecider)
        .when(save(stat('income', 4, 'Q'), stat('revenue')))
        .then([added(stat('income', 4, 'Q')), added(stat('revenue'))]);
    });

    it('records a removal by type for a statistic left out', () => {
      given(companyStatsDecider, defaults)
        .when(save(stat('revenue'), stat('income'), stat('earningspershare')))
        .then([removed('grossprofit')]);
    });

    it('records a modification for a new limit or period', () => {
      given(companyStatsDecider, defaults)
        .when(save(stat('revenue', 8), stat('grossprofit'), stat('income', 0, 'Q'), stat('earningspershare')))
        .then([modified(stat('revenue', 8)), modified(stat('income', 0, 'Q'))]);
    });

    it('records an addition at the end for a new type', () => {
      given(companyStatsDecider, [added(stat('revenue'))])
        .when(save(stat('revenue'), stat('earningspershare', 12, 'Q')))
        .then([added(stat('earningspershare', 12, 'Q'))]);
    });

    it('records removals, then modifications and additions in the order of the new list', () => {
      given(companyStatsDecider, defaults)
        .when(save(stat('revenue', 3), stat('grossprofit'), stat('income', 2)))
        .then([removed('earningspershare'), modified(stat('revenue', 3)), modified(stat('income', 2))]);
    });

    it('decides nothing when the list is unchanged', () => {
      given(companyStatsDecider, defaults)
        .when(save(...DEFAULT_COMPANY_STATS))
        .thenNothing();
    });

    it('records a new order when only the order changes', () => {
      given(companyStatsDecider, defaults)
        .when(save(stat('income'), stat('revenue'), stat('grossprofit'), stat('earningspershare')))
        .then([reordered('income', 'revenue', 'grossprofit', 'earningspershare')]);
    });

    it('records a new order after an addition that belongs before others', () => {
      given(companyStatsDecider, [added(stat('revenue'))])
        .when(save(stat('income'), stat('revenue')))
        .then([added(stat('income')), reordered('income', 'revenue')]);
    });

    it('refuses an empty list: the defaults would only come back', () => {
      given(companyStatsDecider, defaults).when(save()).thenError('empty');
    });

    it('refuses a type twice, naming the second', () => {
      given(companyStatsDecider)
        .when(save(stat('revenue'), stat('revenue', 2)))
        .thenError('duplicate');
      expect(() => parseCompanyStats([stat('revenue'), stat('revenue', 2)]))
        .to.throw(DomainError, 'stats[1].type')
        .with.property('field', 'stats[1].type');
    });

    it(`accepts limits 0 and ${COMPANY_STAT_LIMIT_MAX}`, () => {
      given(companyStatsDecider)
        .when(save(stat('revenue', 0), stat('income', COMPANY_STAT_LIMIT_MAX)))
        .then([added(stat('revenue', 0)), added(stat('income', COMPANY_STAT_LIMIT_MAX))]);
    });

    const bad: [string, unknown, string][] = [
      ['an unknown type', { type: 'ebitda', limit: 0, period: 'A' }, 'stats[0].type'],
      ['a type in upper case', { type: 'REVENUE', limit: 0, period: 'A' }, 'stats[0].type'],
      ['a negative limit', { type: 'revenue', limit: -1, period: 'A' }, 'stats[0].limit'],
      [`a limit past ${COMPANY_STAT_LIMIT_MAX}`, { type: 'revenue', limit: 41, period: 'A' }, 'stats[0].limit'],
      ['a fractional limit', { type: 'revenue', limit: 1.5, period: 'A' }, 'stats[0].limit'],
      ['a limit as text', { type: 'revenue', limit: '4', period: 'A' }, 'stats[0].limit'],
      ['an unknown period', { type: 'revenue', limit: 0, period: 'M' }, 'stats[0].period'],
      ['a missing period', { type: 'revenue', limit: 0 }, 'stats[0].period'],
      ['an entry that is not an object', 'revenue', 'stats[0]'],
    ];
    for (const [what, entry, field] of bad) {
      it(`refuses ${what}, naming ${field}`, () => {
        given(companyStatsDecider)
          .when(save(entry as CompanyStat))
          .thenError('invalid_stat');
        expect(() => parseCompanyStats([entry]))
          .to.throw(DomainError, field)
          .with.property('field', field);
      });
    }
  });

  it('refuses a command type it does not know', () => {
    given(companyStatsDecider)
      .when({ type: 'ClearCompanyStats', data: {} } as unknown as CompanyStatsCommand)
      .thenError('unknown_command');
  });

  describe('evolve', () => {
    it('folds additions, removals, modifications and reorders', () => {
      const state = fold(companyStatsDecider, [
        ...defaults,
        removed('grossprofit'),
        modified(stat('income', 4, 'Q')),
        reordered('earningspershare', 'income', 'revenue'),
        added(stat('grossprofit', 2)),
      ]);
      expect(state.stats).to.deep.equal([
        stat('earningspershare'),
        stat('income', 4, 'Q'),
        stat('revenue'),
        stat('grossprofit', 2),
      ]);
    });

    it('is total: a repeated addition updates in place, a modification of a missing type adds it', () => {
      expect(fold(companyStatsDecider, [added(stat('revenue')), added(stat('revenue', 5))]).stats).to.deep.equal([
        stat('revenue', 5),
      ]);
      expect(fold(companyStatsDecider, [modified(stat('income', 1))]).stats).to.deep.equal([stat('income', 1)]);
      expect(fold(companyStatsDecider, [removed('income')]).stats).to.deep.equal([]);
    });

    it('keeps types a reorder does not name after the named ones', () => {
      const state = fold(companyStatsDecider, [...defaults, reordered('income')]);
      expect(state.stats.map((s) => s.type)).to.deep.equal(['income', 'revenue', 'grossprofit', 'earningspershare']);
    });

    it('ignores an event type it does not know', () => {
      const unknown = { type: 'CompanyStatsArchived', data: {} } as unknown as CompanyStatsEvent;
      expect(companyStatsDecider.evolve({ stats: [stat('revenue')] }, unknown)).to.deep.equal({
        stats: [stat('revenue')],
      });
    });
  });
});
