import { expect } from 'chai';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import { applyToDocuments, project, recorded } from '../testing/inMemory.ts';
import { sectorsProjection } from './sectors.projection.ts';

const S1 = uuidV5('s1', STOCKPULSE_NAMESPACE);
const S2 = uuidV5('s2', STOCKPULSE_NAMESPACE);
const AT = '2025-03-10T15:00:00.000Z';
const event = (userId: string, type: string, data: unknown) => recorded(userId, type, data, 'sectors');

describe('sectors projection', () => {
  const events = [
    event('ada', 'SectorCreated', { sectorId: S1, name: 'Chips', createdt: AT }),
    event('ada', 'SymbolAddedToSector', { sectorId: S1, symbol: 'NVDA' }),
    event('ada', 'SymbolAddedToSector', { sectorId: S1, symbol: 'AMD' }),
    event('ada', 'SectorCreated', { sectorId: S2, name: 'Banks', createdt: AT }),
    event('bob', 'SectorCreated', { sectorId: S1, name: 'Mine', createdt: AT }),
    event('ada', 'SymbolRemovedFromSector', { sectorId: S1, symbol: 'NVDA' }),
    event('ada', 'SectorRenamed', { sectorId: S1, name: 'Semis' }),
    event('ada', 'SectorDeleted', { sectorId: S2 }),
  ];

  it("holds each user's sectors with their symbols, renamed and deleted", async () => {
    const docs = await project(sectorsProjection, events);
    expect(docs.get('ada')).to.deep.equal({ sectors: [{ id: S1, name: 'Semis', symbols: ['AMD'], createdt: AT }] });
    expect(docs.get('bob')).to.deep.equal({ sectors: [{ id: S1, name: 'Mine', symbols: [], createdt: AT }] });
  });

  it('leaves the documents unchanged when the same events come again', async () => {
    const once = await applyToDocuments(sectorsProjection, events);
    const snapshot = structuredClone([...once]);
    await applyToDocuments(sectorsProjection, events, once);
    expect([...once]).to.deep.equal(snapshot);
  });
});
