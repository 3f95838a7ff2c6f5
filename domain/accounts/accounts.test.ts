import { expect } from 'chai';
import { DomainError, fold } from '../decider.ts';
import { given } from '../testing/givenWhenThen.ts';
import { PASSWORD_RESET_TTL_MS, accountDecider, initialOf, type AccountEvent } from './accounts.ts';

const registered = { type: 'UserRegistered', data: { username: 'ada', passwordHash: 'h' } } as const;

describe('accounts decider', function () {
  it('registers a new account', function () {
    given(accountDecider, [])
      .when({ type: 'RegisterUser', data: { username: 'ada', passwordHash: 'h' } })
      .then([registered]);
  });

  it('refuses a command type it does not know, naming the type', function () {
    const unknown = { type: 'RenameUser', data: {} } as unknown as Parameters<typeof accountDecider.decide>[0];
    expect(() => accountDecider.decide(unknown, accountDecider.initialState))
      .to.throw(DomainError, 'type "RenameUser" is not an accounts command')
      .that.includes({ code: 'unknown_command', field: 'type' });
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

  describe('password reset by e-mail', function () {
    const R1 = '6f1c2e0a-8d4b-4c1e-9a7f-0b1d2c3e4f51';
    const R2 = '6f1c2e0a-8d4b-4c1e-9a7f-0b1d2c3e4f52';
    const AT = '2026-03-02T10:00:00.000Z';
    const after = (ms: number): string => new Date(Date.parse(AT) + ms).toISOString();
    const requested = (requestId = R1, at = AT): AccountEvent => ({
      type: 'PasswordResetRequested',
      data: { requestId, at },
    });
    const reset = (requestId = R1, at = after(60_000)) =>
      ({ type: 'ResetPassword', data: { requestId, passwordHash: 'h3', at } }) as const;

    it('records a request of a registered account, and none of an unknown one', function () {
      given(accountDecider, [registered])
        .when({ type: 'RequestPasswordReset', data: { requestId: R1, at: AT } })
        .then([requested()]);
      given(accountDecider, [])
        .when({ type: 'RequestPasswordReset', data: { requestId: R1, at: AT } })
        .thenError('not_found');
    });

    it('sets the password through the pending request, and the account folds to the new hash', function () {
      const done: AccountEvent = { type: 'PasswordReset', data: { requestId: R1, passwordHash: 'h3' } };
      given(accountDecider, [registered, requested()]).when(reset()).then([done]);
      const state = fold(accountDecider, [registered, requested(), done]);
      expect(state.passwordHash).to.equal('h3');
      expect(state.pendingReset).to.equal(undefined);
    });

    it('takes the request up to one hour after it was made, and refuses it once expired', function () {
      given(accountDecider, [registered, requested()])
        .when(reset(R1, after(PASSWORD_RESET_TTL_MS)))
        .then([{ type: 'PasswordReset', data: { requestId: R1, passwordHash: 'h3' } }]);
      given(accountDecider, [registered, requested()])
        .when(reset(R1, after(PASSWORD_RESET_TTL_MS + 1)))
        .thenError('reset_expired');
    });

    it('refuses a request already used', function () {
      const done: AccountEvent = { type: 'PasswordReset', data: { requestId: R1, passwordHash: 'h3' } };
      given(accountDecider, [registered, requested(), done]).when(reset()).thenError('reset_not_pending');
    });

    it('refuses a request another one superseded, and takes the newer one', function () {
      given(accountDecider, [registered, requested(R1), requested(R2, after(1000))])
        .when(reset(R1))
        .thenError('reset_not_pending');
      given(accountDecider, [registered, requested(R1), requested(R2, after(1000))])
        .when(reset(R2))
        .then([{ type: 'PasswordReset', data: { requestId: R2, passwordHash: 'h3' } }]);
    });

    it('refuses a request made before the password was changed', function () {
      given(accountDecider, [registered, requested(), { type: 'PasswordChanged', data: { passwordHash: 'h2' } }])
        .when(reset())
        .thenError('reset_not_pending');
    });

    it('refuses a request the account never made, and an unknown account', function () {
      given(accountDecider, [registered]).when(reset()).thenError('reset_not_pending');
      given(accountDecider, []).when(reset()).thenError('not_found');
    });
  });
});
