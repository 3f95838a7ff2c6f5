/**
 * Symbols chosen by searching the universe: the symbol search (arrow keys, Enter to pick, Escape to close; the
 * symbols already chosen marked) and the chosen symbols as chips with a remove button.
 */
import { SymbolSearch } from '../../components/SymbolSearch.tsx';
import './picker.css';

/** What the picker shows and reports. */
export interface SymbolPickerProps {
  /** The label of the search box. */
  readonly label: string;
  /** The chosen symbols. */
  readonly chosen: readonly string[];
  /** Most symbols that can be chosen. */
  readonly max: number;
  /** A company was picked in the search. */
  readonly onPick: (symbol: string) => void;
  /** A chosen symbol was removed. */
  readonly onRemove: (symbol: string) => void;
}

/** The symbol picker. */
export function SymbolPicker(props: SymbolPickerProps) {
  const { chosen, max } = props;
  const full = chosen.length >= max;
  return (
    <div className="symbol-picker">
      <SymbolSearch
        label={props.label}
        placeholder={full ? `At most ${max} symbols` : undefined}
        disabled={full}
        marked={new Set(chosen)}
        markedText="chosen"
        onPick={(hit) => props.onPick(hit.symbol)}
      />
      {chosen.length > 0 && (
        <ul className="picked" aria-label="Chosen symbols">
          {chosen.map((symbol) => (
            <li key={symbol} className="picked-chip">
              {symbol}
              <button
                type="button"
                className="icon-button small"
                aria-label={`Remove ${symbol}`}
                onClick={() => props.onRemove(symbol)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
