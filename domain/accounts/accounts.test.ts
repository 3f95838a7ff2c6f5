import { expect } from 'chai';
import { given } from '../testing/givenWhenThen.ts';
import { accountDecider, initialOf } from './accounts.ts';

const registered = { type: 'UserRegistered', data: { username: 'ada', passwordHash: 'h' } } as const;

describe('accounts decider', function () {
  it('registers a new account', function () {
    given(accountDecider, [])
      .when({ type: 'RegisterUser', data: { username: 'ada', passwordHash: 'h' } })
      .then([registered]);
  });

  it('refuses a username already taken', function () {
    given(accountDecider, [registered])
      .when({ type: 'RegisterUser', data: { username: 'ada', passwordHash: 'x' } })
      .thenError('taken');
  });

  it('refuses a username outside the rule', function () {
    given(accountDecider, [])
      .when({ type: 'RegisterUser', data: { username: 'Ada!', passwordHash: 'h' } })
      .thenError('invalid_username');
  });

  it('records a sign-in and a sign-out of a registered user', function () {
    given(accountDecider, [registered])
      .when({ type: 'SignIn', data: { address: '127.0.0.1' } })
      .then([{ type: 'UserSignedIn', data: { address: '127.0.0.1' } }]);
    given(accountDecider, [registered])
      .when({ type: 'SignOut', data: {} })
      .then([{ type: 'UserSignedOut', data: {} }]);
  });

  it('changes the password, and the account folds to the new hash', function () {
    const changed = { type: 'PasswordChanged', data: { passwordHash: 'h2' } } as const;
    given(accountDecider, [registered])
      .when({ type: 'ChangePassword', data: { passwordHash: 'h2' } })
      .then([changed]);
    expect(
      accountDecider.evolve(accountDecider.evolve(accountDecider.initialState, registered), changed).passwordHash,
    ).to.equal('h2');
    given(accountDecider, [])
      .when({ type: 'ChangePassword', data: { passwordHash: 'h2' } })
      .thenError('not_found');
  });

  it('records the ending of the other sessions', function () {
    given(accountDecider, [registered])
      .when({ type: 'EndOtherSessions', data: { ended: 2 } })
      .then([{ type: 'OtherSessionsEnded', data: { ended: 2 } }]);
  });

  it('refuses to sign in an account that does not exist', function () {
    given(accountDecider, [])
      .when({ type: 'SignIn', data: { address: '127.0.0.1' } })
      .thenError('not_found');
  });

  it('grants the auditor role once', function () {
    const granted = { type: 'RoleGranted', data: { role: 'auditor', grantedBy: 'script' } } as const;
    given(accountDecider, [registered])
      .when({ type: 'GrantRole', data: { role: 'auditor', grantedBy: 'script' } })
      .then([granted]);
    given(accountDecider, [registered, granted])
      .when({ type: 'GrantRole', data: { role: 'auditor', grantedBy: 'script' } })
      .thenNothing();
  });

  it('folds the roles of an account', function () {
    const state = [registered, { type: 'RoleGranted', data: { role: 'auditor', grantedBy: 's' } } as const].reduce(
      (state, event) => accountDecider.evolve(state, event),
      accountDecider.initialState,
    );
    expect(state.roles).to.deep.equal(['user', 'auditor']);
  });

  it('takes the initial from the first letter of the username', function () {
    expect(initialOf('ada')).to.equal('A');
    expect(initialOf('9lives')).to.equal('9');
  });
});
