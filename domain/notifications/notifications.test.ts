import { expect } from 'chai';
import { fold } from '../decider.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../ids.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  MARK_READ_LIMIT,
  compareCursors,
  isNotificationRead,
  notificationsDecider,
  type NotificationsCommand,
  type NotificationsEvent,
  type ReadCursor,
} from './notifications.ts';

const N1 = uuidV5('n1', STOCKPULSE_NAMESPACE);
const N2 = uuidV5('n2', STOCKPULSE_NAMESPACE);
const N3 = uuidV5('n3', STOCKPULSE_NAMESPACE);
const at = (commit: number, prepare = commit): ReadCursor => ({ commit, prepare });

const markRead = (...ids: string[]): NotificationsCommand => ({ type: 'MarkNotificationsRead', data: { ids } });
const markAll = (upTo: ReadCursor): NotificationsCommand => ({ type: 'MarkAllNotificationsRead', data: { upTo } });
const markedRead = (...ids: string[]): NotificationsEvent => ({ type: 'NotificationsMarkedRead', data: { ids } });
const allMarked = (upTo: ReadCursor): NotificationsEvent => ({ type: 'AllNotificationsMarkedRead', data: { upTo } });

describe('notifications read-state decider', () => {
  describe('marking notifications read', () => {
    it('marks the named notifications read', () => {
      given(notificationsDecider)
        .when(markRead(N1, N2))
        .then([markedRead(N1, N2)]);
    });

    it('drops notifications already read and repeats within the command', () => {
      given(notificationsDecider, [markedRead(N1)])
        .when(markRead(N1, N2, N2, N2.toUpperCase()))
        .then([markedRead(N2)]);
    });

    it('decides nothing when every notification is already read', () => {
      given(notificationsDecider, [markedRead(N1, N2)])
        .when(markRead(N2, N1))
        .thenNothing();
    });

    it('refuses an empty list, an id that is not a notification id, and too many ids', () => {
      given(notificationsDecider).when(markRead()).thenError('empty');
      given(notificationsDecider).when(markRead(N1, 'n2')).thenError('invalid_id');
      const many = Array.from({ length: MARK_READ_LIMIT + 1 }, (_, i) => uuidV5(`m${i}`, STOCKPULSE_NAMESPACE));
      given(notificationsDecider)
        .when(markRead(...many))
        .thenError('limit');
      given(notificationsDecider)
        .when(markRead(...many.slice(1)))
        .then([markedRead(...many.slice(1))]);
    });
  });

  describe('marking all read', () => {
    it('records the place in the log up to which all are read', () => {
      given(notificationsDecider)
        .when(markAll(at(10)))
        .then([allMarked(at(10))]);
    });

    it('moves the place forward only', () => {
      given(notificationsDecider, [allMarked(at(10))])
        .when(markAll(at(12, 11)))
        .then([allMarked(at(12, 11))]);
      given(notificationsDecider, [allMarked(at(10))])
        .when(markAll(at(10)))
        .thenNothing();
      given(notificationsDecider, [allMarked(at(10))])
        .when(markAll(at(9)))
        .thenNothing();
    });

    it('refuses a place that is not one', () => {
      given(notificationsDecider)
        .when(markAll({ commit: -1, prepare: 0 }))
        .thenError('invalid_cursor');
      given(notificationsDecider)
        .when(markAll({ commit: 1.5, prepare: 0 }))
        .thenError('invalid_cursor');
      given(notificationsDecider)
        .when(markAll(null as unknown as ReadCursor))
        .thenError('invalid_cursor');
    });
  });

  it('refuses a command type it does not know', () => {
    const unknown = { type: 'ForgetNotifications', data: {} } as unknown as NotificationsCommand;
    given(notificationsDecider).when(unknown).thenError('unknown_command');
  });

  describe('evolve and the read rule', () => {
    it('reads a notification marked by id, or recorded at or before the all-read place', () => {
      const state = fold(notificationsDecider, [markedRead(N3), allMarked(at(10))]);
      expect(isNotificationRead(state, N1, at(9))).to.equal(true);
      expect(isNotificationRead(state, N1, at(10))).to.equal(true);
      expect(isNotificationRead(state, N2, at(11))).to.equal(false);
      expect(isNotificationRead(state, N3, at(50))).to.equal(true);
    });

    it('reads nothing before any mark', () => {
      expect(isNotificationRead(notificationsDecider.initialState, N1, at(0))).to.equal(false);
    });

    it('is total: repeated and older marks leave the state as it is', () => {
      const state = fold(notificationsDecider, [markedRead(N1), allMarked(at(10))]);
      expect(fold(notificationsDecider, [markedRead(N1), allMarked(at(3))], state)).to.deep.equal(state);
    });

    it('ignores an event type it does not know', () => {
      const unknown = { type: 'NotificationsForgotten', data: {} } as unknown as NotificationsEvent;
      const state = fold(notificationsDecider, [markedRead(N1)]);
      expect(notificationsDecider.evolve(state, unknown)).to.equal(state);
    });

    it('orders places by commit, then prepare', () => {
      expect(compareCursors(at(1, 5), at(2, 0))).to.be.below(0);
      expect(compareCursors(at(2, 1), at(2, 0))).to.be.above(0);
      expect(compareCursors(at(2, 2), at(2, 2))).to.equal(0);
    });
  });
});
