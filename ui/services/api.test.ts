import { expect } from 'chai';
import { alertsApi } from '../../domain/contract/alerts.ts';
import { auditApi } from '../../domain/contract/audit.ts';
import { marketApi } from '../../domain/contract/market.ts';
import { priceAlertAnswer } from '../../domain/testing/alertAnswers.ts';
import { ApiError, checkAnswer, urlOf } from './api.ts';

describe('the API client', function () {
  describe('urlOf', function () {
    it('fills the path parameters, encoded, and appends the defined query values in order', function () {
      const url = urlOf(auditApi.getAuditUsersByUsernameEvents, {
        params: { username: 'ada lovelace' },
        query: { limit: 500, after: '2/2', type: undefined },
      });
      expect(url).to.equal('/api/audit/users/ada%20lovelace/events?limit=500&after=2%2F2');
    });

    it('leaves the query out when it has no values', function () {
      expect(urlOf(marketApi.getUniverse, { query: {} })).to.equal('/api/universe');
    });

    it('refuses a missing path parameter, naming it', function () {
      expect(() => urlOf(marketApi.getBarsBySymbol, { params: {} })).to.throw(/missing path parameter symbol/);
    });
  });

  describe('checkAnswer', function () {
    const alert = priceAlertAnswer('a1', 190, { createdt: '2026-01-02T00:00:00Z' });

    it('answers an answer that matches the route schema as it is', function () {
      const answer = [alert];
      expect(checkAnswer(alertsApi.getStockalerts, answer)).to.equal(answer);
    });

    it('throws a contract error naming the route and the field of an answer that does not match', function () {
      const original = console.error;
      const logged: unknown[][] = [];
      console.error = (...args: unknown[]) => logged.push(args);
      try {
        expect(() => checkAnswer(alertsApi.getStockalerts, [{ ...alert, alerttype: 'X' }]))
          .to.throw(ApiError, 'GET /personalize/stockalerts: answer.0.alerttype:')
          .with.property('code', 'contract');
      } finally {
        console.error = original;
      }
      expect(logged).to.have.length(1);
    });
  });
});
