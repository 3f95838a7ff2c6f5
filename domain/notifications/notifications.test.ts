import { expect } from 'chai';
import { fold } from '../decider.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../ids.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  MARK_READ_LIMIT,
  NOTIFICATIONS_KEPT,
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
/** Marking read each id with where its trigger is, `[id, commit]` (prepare equal to commit). */
const markReadAt = (...read: [string, number][]): NotificationsCommand => ({
  type: 'MarkNotificationsRead',
  data: { ids: read.map(([id]) => id), positions: read.map(([, commit]) => at(commit)) },
});
const markedReadAt = (...read: [string, number][]): NotificationsEvent => ({
  type: 'NotificationsMarkedRead',
  data: { ids: read.map(([id]) => id), positions: read.map(([, commit]) => at(commit)) },
});
const id = (n: number): string => uuidV5(`kept-${n}`, STOCKPULSE_NAMESPACE);
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

  describe('marking read with where each trigger is', () => {
    it('records each id with its place', () => {
      given(notificationsDecider)
        .when(markReadAt([N1, 4], [N2, 6]))
        .then([markedReadAt([N1, 4], [N2, 6])]);
    });

    it('drops ids the all-read place covers, and decides nothing when it covers them all', () => {
      given(notificationsDecider, [allMarked(at(5))])
        .when(markReadAt([N1, 4], [N2, 6], [N3, 5]))
        .then([markedReadAt([N2, 6])]);
      given(notificationsDecider, [allMarked(at(5))])
        .when(markReadAt([N1, 4], [N3, 5]))
        .thenNothing();
    });

    it('refuses places that are not one per id, naming the field', () => {
      given(notificationsDecider)
        .when({ type: 'MarkNotificationsRead', data: { ids: [N1, N2], positions: [at(1)] } })
        .thenError('invalid_cursor');
      const bad = { type: 'MarkNotificationsRead', data: { ids: [N1, N2], positions: [at(1), { commit: -1 }] } };
      given(notificationsDecider)
        .when(bad as unknown as NotificationsCommand)
        .thenError('invalid_cursor');
      expect(() =>
        notificationsDecider.decide(bad as unknown as NotificationsCommand, notificationsDecider.initialState),
      )
        .to.throw()
        .with.property('field', 'positions[1]');
    });

    it('forgets the ids all-read covers, and keeps those recorded without a place', () => {
      const state = fold(notificationsDecider, [markedRead(N3), markedReadAt([N1, 4], [N2, 8]), allMarked(at(5))]);
      expect(state.readIds).to.deep.equal([N3, N2]);
      expect(state.readPositions).to.deep.equal([null, at(8)]);
      expect(isNotificationRead(state, N1, at(4))).to.equal(true);
      expect(isNotificationRead(state, N2, at(8))).to.equal(true);
      expect(isNotificationRead(state, N3, at(50))).to.equal(true);
    });

    it(`holds at most ${NOTIFICATIONS_KEPT} placed ids, the newest by place whatever the order they were read in`, () => {
      // Read newest first in commands of 200: ids 1..1005 at commit 10 × n, read from 1005 down to 1.
      const ns = Array.from({ length: NOTIFICATIONS_KEPT + 5 }, (_, k) => NOTIFICATIONS_KEPT + 5 - k);
      const events: NotificationsEvent[] = [markedRead(N3)];
      for (let from = 0; from < ns.length; from += MARK_READ_LIMIT) {
        events.push(
          markedReadAt(...ns.slice(from, from + MARK_READ_LIMIT).map((n): [string, number] => [id(n), 10 * n])),
        );
      }
      const state = fold(notificationsDecider, events);
      expect(state.readIds).to.have.length(NOTIFICATIONS_KEPT + 1);
      expect(state.readIds[0], 'recorded without a place').to.equal(N3);
      // The five oldest by place are no longer in the bell, though they were read last.
      for (let n = 1; n <= 5; n++) expect(state.readIds).to.not.include(id(n));
      expect(state.readIds).to.include(id(6));
      expect(state.readIds).to.include(id(NOTIFICATIONS_KEPT + 5));
      expect(state.readPositions.filter((p) => p !== null)).to.have.length(NOTIFICATIONS_KEPT);
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
