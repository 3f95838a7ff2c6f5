/**
 * The sector select of the Correlate and Drill screens: the GICS sectors, then the user's own.
 */
import type { SectorGroups } from './perform.machine.ts';

/** A labelled select of the GICS sectors and the user's own, disabled until they are loaded (`groups` null). */
export function SectorSelect(props: {
  readonly groups: SectorGroups | null;
  readonly sectorId: string | null;
  readonly onSelect: (sectorId: string) => void;
}) {
  const { groups } = props;
  return (
    <label className="sector-select">
      Sector
      <select
        value={props.sectorId ?? ''}
        disabled={groups === null}
        onChange={(event) => props.onSelect(event.target.value)}
      >
        <optgroup label="GICS sectors">
          {groups?.gics.map((g) => (
            <option key={g.id} value={g.id}>
              {g.name}
            </option>
          ))}
        </optgroup>
        {groups !== null && groups.mine.length > 0 && (
          <optgroup label="My sectors">
            {groups.mine.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name}
              </option>
            ))}
          </optgroup>
        )}
      </select>
    </label>
  );
}
