import { expect } from 'chai';
import { DomainError, fold } from '../decider.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../ids.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  SECTORS_LIMIT,
  SECTOR_NAME_MAX_LENGTH,
  SECTOR_SYMBOLS_LIMIT,
  sectorsDecider,
  type SectorsCommand,
  type SectorsEvent,
} from './sectors.ts';

const AT = '2025-03-10T15:00:00.000Z';
const id = (n: number): string => uuidV5(`sector-${n}`, STOCKPULSE_NAMESPACE);
const S1 = id(1);
const S2 = id(2);

const create = (sectorId: string, name: string, ...symbols: string[]): SectorsCommand => ({
  type: 'CreateSector',
  data: { sectorId, name, symbols, at: AT },
});
const rename = (sectorId: string, name: string): SectorsCommand => ({ type: 'RenameSector', data: { sectorId, name } });
const add = (sectorId: string, ...symbols: string[]): SectorsCommand => ({
  type: 'AddSymbolsToSector',
  data: { sectorId, symbols },
});
const remove = (sectorId: string, symbol: string): SectorsCommand => ({
  type: 'RemoveSymbolFromSector',
  data: { sectorId, symbol },
});
const del = (sectorId: string): SectorsCommand => ({ type: 'DeleteSector', data: { sectorId } });

const created = (sectorId: string, name: string, createdt = AT): SectorsEvent => ({
  type: 'SectorCreated',
  data: { sectorId, name, createdt },
});
const renamed = (sectorId: string, name: string): SectorsEvent => ({ type: 'SectorRenamed', data: { sectorId, name } });
const added = (sectorId: string, symbol: string): SectorsEvent => ({
  type: 'SymbolAddedToSector',
  data: { sectorId, symbol },
});
const removed = (sectorId: string, symbol: string): SectorsEvent => ({
  type: 'SymbolRemovedFromSector',
  data: { sectorId, symbol },
});
const deleted = (sectorId: string): SectorsEvent => ({ type: 'SectorDeleted', data: { sectorId } });
const numbered = (count: number): string[] => Array.from({ length: count }, (_, i) => `S${String(i).padStart(4, '0')}`);

describe('sectors decider', () => {
  describe('creating a sector', () => {
    it('creates a sector with its first symbols, normalised and each once', () => {
      given(sectorsDecider)
        .when(create(S1, '  Chips  ', 'nvda', 'AMD', 'NVDA'))
        .then([created(S1, 'Chips'), added(S1, 'NVDA'), added(S1, 'AMD')]);
    });

    it('creates an empty sector', () => {
      given(sectorsDecider)
        .when(create(S1, 'Later'))
        .then([created(S1, 'Later')]);
    });

    it('refuses a name taken by another sector, whatever its case and spaces', () => {
      given(sectorsDecider, [created(S1, 'Chips')])
        .when(create(S2, ' chips '))
        .thenError('taken');
    });

    for (const bad of ['', '   ', 'x'.repeat(SECTOR_NAME_MAX_LENGTH + 1)]) {
      it(`refuses the name ${JSON.stringify(bad.length > 10 ? `${bad.slice(0, 10)}…` : bad)}`, () => {
        given(sectorsDecider).when(create(S1, bad)).thenError('invalid_name');
      });
    }

    it(`accepts a name of exactly ${SECTOR_NAME_MAX_LENGTH} characters`, () => {
      const name = 'n'.repeat(SECTOR_NAME_MAX_LENGTH);
      given(sectorsDecider)
        .when(create(S1, name))
        .then([created(S1, name)]);
    });

    it('refuses a bad symbol naming its place in the command', () => {
      try {
        sectorsDecider.decide(create(S1, 'Chips', 'NVDA', 'BAD ONE'), sectorsDecider.initialState);
        expect.fail('decide accepted BAD ONE');
      } catch (error) {
        expect(error).to.be.instanceOf(DomainError);
        expect((error as DomainError).code).to.equal('invalid_symbol');
        expect((error as DomainError).field).to.equal('symbols[1]');
      }
    });

    it(`fills the user's sectors up to ${SECTORS_LIMIT} and refuses one more`, () => {
      const past = Array.from({ length: SECTORS_LIMIT - 1 }, (_, i) => created(id(100 + i), `Sector ${i}`));
      given(sectorsDecider, past)
        .when(create(S1, 'Last'))
        .then([created(S1, 'Last')]);
      given(sectorsDecider, [...past, created(S2, 'Full')])
        .when(create(S1, 'One too many'))
        .thenError('limit');
    });

    it('has room for a new sector again after a deletion', () => {
      const past = Array.from({ length: SECTORS_LIMIT }, (_, i) => created(id(100 + i), `Sector ${i}`));
      given(sectorsDecider, [...past, deleted(id(100))])
        .when(create(S1, 'Sector 0'))
        .then([created(S1, 'Sector 0')]);
    });

    it(`refuses more than ${SECTOR_SYMBOLS_LIMIT} symbols`, () => {
      given(sectorsDecider)
        .when(create(S1, 'Big', ...numbered(SECTOR_SYMBOLS_LIMIT + 1)))
        .thenError('limit');
    });

    it('refuses an id that is not a sector id, and one already used', () => {
      given(sectorsDecider).when(create('not-an-id', 'Chips')).thenError('invalid_id');
      given(sectorsDecider, [created(S1, 'Chips')])
        .when(create(S1, 'Other'))
        .thenError('taken');
    });
  });

  describe('renaming a sector', () => {
    it('renames a sector', () => {
      given(sectorsDecider, [created(S1, 'Chips')])
        .when(rename(S1, ' Semis '))
        .then([renamed(S1, 'Semis')]);
    });

    it('renames to another spelling of its own name', () => {
      given(sectorsDecider, [created(S1, 'chips')])
        .when(rename(S1, 'Chips'))
        .then([renamed(S1, 'Chips')]);
    });

    it('decides nothing when the name does not change', () => {
      given(sectorsDecider, [created(S1, 'Chips')])
        .when(rename(S1, 'Chips '))
        .thenNothing();
    });

    it("refuses another sector's name", () => {
      given(sectorsDecider, [created(S1, 'Chips'), created(S2, 'Banks')])
        .when(rename(S1, 'BANKS'))
        .thenError('taken');
    });

    it('refuses a sector the user does not have', () => {
      given(sectorsDecider, [created(S1, 'Chips')])
        .when(rename(S2, 'Banks'))
        .thenError('not_found');
      given(sectorsDecider, [created(S1, 'Chips'), deleted(S1)])
        .when(rename(S1, 'Banks'))
        .thenError('not_found');
    });
  });

  describe('adding and removing symbols', () => {
    it('merges symbols without duplicates', () => {
      given(sectorsDecider, [created(S1, 'Chips'), added(S1, 'NVDA')])
        .when(add(S1, 'nvda', 'AMD', 'INTC', 'AMD'))
        .then([added(S1, 'AMD'), added(S1, 'INTC')]);
    });

    it('decides nothing when every symbol is already in the sector', () => {
      given(sectorsDecider, [created(S1, 'Chips'), added(S1, 'NVDA')])
        .when(add(S1, 'NVDA'))
        .thenNothing();
    });

    it('keeps sectors apart: a symbol of one sector can be added to another', () => {
      given(sectorsDecider, [created(S1, 'Chips'), added(S1, 'NVDA'), created(S2, 'AI')])
        .when(add(S2, 'NVDA'))
        .then([added(S2, 'NVDA')]);
    });

    it('refuses an empty list and a sector the user does not have', () => {
      given(sectorsDecider, [created(S1, 'Chips')])
        .when(add(S1))
        .thenError('empty');
      given(sectorsDecider).when(add(S1, 'NVDA')).thenError('not_found');
    });

    it(`fills a sector up to exactly ${SECTOR_SYMBOLS_LIMIT} symbols and refuses more`, () => {
      const past = [created(S1, 'Big'), ...numbered(SECTOR_SYMBOLS_LIMIT - 1).map((s) => added(S1, s))];
      given(sectorsDecider, past)
        .when(add(S1, 'ZZZ'))
        .then([added(S1, 'ZZZ')]);
      given(sectorsDecider, past)
        .when(add(S1, 'ZZZ', 'YYY'))
        .thenError('limit');
    });

    it('removes a symbol of the sector, named in any case', () => {
      given(sectorsDecider, [created(S1, 'Chips'), added(S1, 'NVDA'), added(S1, 'AMD')])
        .when(remove(S1, 'nvda'))
        .then([removed(S1, 'NVDA')]);
    });

    it('decides nothing when the symbol is not in the sector', () => {
      given(sectorsDecider, [created(S1, 'Chips'), added(S1, 'NVDA')])
        .when(remove(S1, 'AMD'))
        .thenNothing();
    });

    it('refuses a bad symbol and a sector the user does not have', () => {
      given(sectorsDecider, [created(S1, 'Chips')])
        .when(remove(S1, 'A A'))
        .thenError('invalid_symbol');
      given(sectorsDecider).when(remove(S1, 'NVDA')).thenError('not_found');
    });
  });

  describe('deleting a sector', () => {
    it('deletes a sector', () => {
      given(sectorsDecider, [created(S1, 'Chips')])
        .when(del(S1))
        .then([deleted(S1)]);
    });

    it('refuses a sector already deleted or never created', () => {
      given(sectorsDecider, [created(S1, 'Chips'), deleted(S1)])
        .when(del(S1))
        .thenError('not_found');
      given(sectorsDecider).when(del(S2)).thenError('not_found');
    });

    it('frees the name of a deleted sector', () => {
      given(sectorsDecider, [created(S1, 'Chips'), deleted(S1)])
        .when(create(S2, 'Chips'))
        .then([created(S2, 'Chips')]);
    });
  });

  it('refuses a command type it does not know', () => {
    const unknown = { type: 'MergeSectors', data: {} } as unknown as SectorsCommand;
    given(sectorsDecider).when(unknown).thenError('unknown_command');
  });

  describe('evolve', () => {
    it('folds the events into sectors in creation order', () => {
      const state = fold(sectorsDecider, [
        created(S1, 'Chips'),
        added(S1, 'NVDA'),
        created(S2, 'Banks', '2025-03-11T10:00:00.000Z'),
        added(S1, 'AMD'),
        added(S2, 'JPM'),
        removed(S1, 'NVDA'),
        renamed(S2, 'Big banks'),
      ]);
      expect(state).to.deep.equal({
        sectors: [
          { id: S1, name: 'Chips', symbols: ['AMD'], createdt: AT },
          { id: S2, name: 'Big banks', symbols: ['JPM'], createdt: '2025-03-11T10:00:00.000Z' },
        ],
      });
      expect(fold(sectorsDecider, [deleted(S1)], state).sectors.map((s) => s.id)).to.deep.equal([S2]);
    });

    it('is total: events of an absent sector and repeats leave the state as it is', () => {
      const one = fold(sectorsDecider, [created(S1, 'Chips'), added(S1, 'NVDA')]);
      for (const event of [
        created(S1, 'Again'),
        added(S1, 'NVDA'),
        added(S2, 'AMD'),
        removed(S1, 'AMD'),
        renamed(S2, 'x'),
        deleted(S2),
      ]) {
        expect(sectorsDecider.evolve(one, event)).to.deep.equal(one);
      }
    });

    it('ignores an event type it does not know', () => {
      const unknown = { type: 'SectorColoured', data: {} } as unknown as SectorsEvent;
      expect(sectorsDecider.evolve(sectorsDecider.initialState, unknown)).to.equal(sectorsDecider.initialState);
    });
  });
});
