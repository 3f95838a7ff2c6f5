import { sectorsDecider, type SectorsEvent, type SectorsState } from '../../domain/sectors/sectors.ts';
import { deciderProjection, type Projection } from '../projection.ts';

/** `GET /personalize/sectors`: each user's sectors, folded with the decider's own `evolve`. */
export const sectorsProjection: Projection<SectorsState> = deciderProjection('sectors', 1, sectorsDecider, [
  'SectorCreated',
  'SectorRenamed',
  'SymbolAddedToSector',
  'SymbolRemovedFromSector',
  'SectorDeleted',
] satisfies SectorsEvent['type'][]);
