import { expect } from 'chai';
import { fold } from '../decider.ts';
import { given } from '../testing/givenWhenThen.ts';
import { auditDecider, type AuditCommand, type AuditEvent, type HistoryQuery } from './audit.ts';

const historyQuery = (username: string): HistoryQuery => ({
  username,
  types: ['SymbolAddedToWatchlist'],
  from: '2026-01-01T00:00:00Z',
  to: null,
  after: null,
  limit: 100,
});

describe('audit decider', () => {
  it('records a read of a user history with the filter asked for', () => {
    given(auditDecider)
      .when({ type: 'ViewUserHistory', data: historyQuery('ada') })
      .then([{ type: 'UserHistoryViewed', data: historyQuery('ada') }]);
  });

  it('records a look at a user state at a moment', () => {
    const data = { username: 'ada', at: '2026-03-01T12:00:00Z', position: null };
    given(auditDecider)
      .when({ type: 'ViewUserState', data })
      .then([{ type: 'UserStateViewed', data }]);
  });

  it('records a verification with what it found', () => {
    const data = { username: 'ada', intact: false, events: 12, streams: 2 };
    given(auditDecider)
      .when({ type: 'VerifyUserChain', data })
      .then([{ type: 'UserChainVerified', data }]);
  });

  it('records a look at the user list', () => {
    given(auditDecider)
      .when({ type: 'ViewUserList', data: { prefix: 'a' } })
      .then([{ type: 'UserListViewed', data: { prefix: 'a' } }]);
  });

  it('records every read again, even the same one twice', () => {
    given(auditDecider, [{ type: 'UserHistoryViewed', data: historyQuery('ada') }])
      .when({ type: 'ViewUserHistory', data: historyQuery('ada') })
      .then([{ type: 'UserHistoryViewed', data: historyQuery('ada') }]);
  });

  const badUsernames = ['', 'ab', 'Ada', 'a'.repeat(33), 'ada lovelace'];
  for (const username of badUsernames) {
    it(`refuses to record a read naming ${JSON.stringify(username)} as the user`, () => {
      const commands: AuditCommand[] = [
        { type: 'ViewUserHistory', data: historyQuery(username) },
        { type: 'ViewUserState', data: { username, at: null, position: null } },
        { type: 'VerifyUserChain', data: { username, intact: true, events: 0, streams: 0 } },
      ];
      for (const command of commands) given(auditDecider).when(command).thenError('invalid_username');
    });
  }

  it('counts the reads and names each user read once, in order of the first read', () => {
    const events: AuditEvent[] = [
      { type: 'UserHistoryViewed', data: historyQuery('bob') },
      { type: 'UserListViewed', data: { prefix: null } },
      { type: 'UserStateViewed', data: { username: 'ada', at: null, position: '4/4' } },
      { type: 'UserChainVerified', data: { username: 'bob', intact: true, events: 3, streams: 1 } },
    ];
    expect(fold(auditDecider, events)).to.deep.equal({ reads: 4, users: ['bob', 'ada'] });
  });

  it('leaves the state as it is for an event type it does not know', () => {
    const state = { reads: 2, users: ['ada'] };
    expect(auditDecider.evolve(state, { type: 'SomethingElse', data: {} } as unknown as AuditEvent)).to.equal(state);
  });
});
