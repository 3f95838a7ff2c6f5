/**
 * Symbols chosen by searching the universe: a combobox with suggestions (arrow keys, Enter to pick, Escape to
 * close) and the chosen symbols as chips with a remove button. Presentational: the screen's machine searches.
 */
import { useId, useState } from 'react';
import type { UniverseHit } from './universeSearch.ts';
import './picker.css';

/** What the picker shows and reports. */
export interface SymbolPickerProps {
  /** The label of the search box. */
  readonly label: string;
  /** The text typed. */
  readonly query: string;
  /** Suggestions for the text. */
  readonly results: readonly UniverseHit[];
  /** Whether a search is running. */
  readonly searching: boolean;
  /** The chosen symbols. */
  readonly chosen: readonly string[];
  /** Most symbols that can be chosen. */
  readonly max: number;
  /** The text changed. */
  readonly onQuery: (query: string) => void;
  /** A suggestion was picked. */
  readonly onPick: (symbol: string) => void;
  /** A chosen symbol was removed. */
  readonly onRemove: (symbol: string) => void;
}

/** The symbol picker. */
export function SymbolPicker(props: SymbolPickerProps) {
  const { query, results, chosen, max } = props;
  const [active, setActive] = useState(0);
  const [open, setOpen] = useState(false);
  const id = useId();
  const listId = `${id}-list`;
  const full = chosen.length >= max;
  const showList = open && query.trim() !== '' && (results.length > 0 || !props.searching);

  const pick = (symbol: string) => {
    props.onPick(symbol);
    props.onQuery('');
    setActive(0);
    setOpen(false);
  };

  return (
    <div className="symbol-picker">
      <div className="picker-box">
        <label htmlFor={`${id}-input`}>{props.label}</label>
        <input
          id={`${id}-input`}
          role="combobox"
          aria-expanded={showList}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={showList && results[active] ? `${id}-opt-${active}` : undefined}
          placeholder={full ? `At most ${max} symbols` : 'Symbol or company name'}
          disabled={full}
          value={query}
          autoComplete="off"
          onChange={(event) => {
            props.onQuery(event.target.value);
            setActive(0);
            setOpen(true);
          }}
          onFocus={() => setOpen(true)}
          onBlur={() => setOpen(false)}
          onKeyDown={(event) => {
            if (event.key === 'ArrowDown') {
              event.preventDefault();
              setOpen(true);
              setActive((i) => Math.min(results.length - 1, i + 1));
            } else if (event.key === 'ArrowUp') {
              event.preventDefault();
              setActive((i) => Math.max(0, i - 1));
            } else if (event.key === 'Enter') {
              event.preventDefault();
              const hit = results[active];
              if (hit) pick(hit.symbol);
            } else if (event.key === 'Escape') {
              setOpen(false);
            }
          }}
        />
        {showList && (
          <ul className="picker-list" role="listbox" id={listId} aria-label="Matching companies">
            {results.length === 0 ? (
              <li className="picker-none" role="option" aria-selected={false} aria-disabled>
                No company matches “{query.trim()}”
              </li>
            ) : (
              results.map((hit, i) => (
                <li
                  key={hit.symbol}
                  id={`${id}-opt-${i}`}
                  role="option"
                  aria-selected={i === active}
                  className={i === active ? 'active' : undefined}
                  onMouseDown={(event) => {
                    event.preventDefault();
                    pick(hit.symbol);
                  }}
                  onMouseEnter={() => setActive(i)}
                >
                  <strong>{hit.symbol}</strong> <span>{hit.name}</span> <span className="hint">{hit.sector}</span>
                </li>
              ))
            )}
          </ul>
        )}
      </div>
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
