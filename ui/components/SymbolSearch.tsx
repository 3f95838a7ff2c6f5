/**
 * A symbol search over the universe as an accessible combobox: type a symbol or a word of the company name,
 * move through the matches with the arrow keys, pick one with Enter or a click. Each match shows the symbol,
 * the company name and the sector; symbols already on the screen's list are marked.
 */
import { useMachine } from '@xstate/react';
import { useEffect, useId, useRef, type KeyboardEvent } from 'react';
import { UNIVERSE_QUERY_MAX } from '../../domain/contract/market.ts';
import { symbolSearchMachine, type UniverseHit } from './symbolSearch.machine.ts';
import './SymbolSearch.css';

/** Properties of {@link SymbolSearch}. */
export interface SymbolSearchProps {
  /** The visible label of the field. */
  readonly label: string;
  /** Called with the company picked. */
  readonly onPick: (hit: UniverseHit) => void;
  /** The field's placeholder. */
  readonly placeholder?: string;
  /** Symbols to mark in the matches (already on the list). */
  readonly marked?: ReadonlySet<string>;
  /** The mark's text. */
  readonly markedText?: string;
  /**
   * A form's symbol field: the text typed is the value (`onType` has each change) and a pick leaves its symbol
   * in the field, rather than emptying it.
   */
  readonly onType?: (text: string) => void;
  /** Marks the field as refused (`aria-invalid`). */
  readonly invalid?: boolean;
  /** The id of the element that says why it was refused (`aria-describedby`). */
  readonly describedBy?: string;
  /** Turns the field off (e.g. a list that is full; the placeholder then says why). */
  readonly disabled?: boolean;
}

/** The symbol search field with its list of matches. */
export function SymbolSearch(props: SymbolSearchProps) {
  const [state, send, actor] = useMachine(symbolSearchMachine, { input: { keep: props.onType !== undefined } });
  const onPick = useRef(props.onPick);
  useEffect(() => {
    onPick.current = props.onPick;
  }, [props.onPick]);
  useEffect(() => {
    const subscription = actor.on('picked', (event) => onPick.current(event.hit));
    return () => subscription.unsubscribe();
  }, [actor]);

  const id = useId();
  const inputId = `${id}-input`;
  const listId = `${id}-list`;
  const optionId = (index: number) => `${id}-option-${index}`;
  const { text, results, active, error } = state.context;
  const showing = state.matches('showing');
  const open = showing && results.length > 0;
  const busy = state.matches('debouncing') || state.matches('searching');

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      send({ type: 'user.move', by: event.key === 'ArrowDown' ? 1 : -1 });
    } else if (event.key === 'Enter') {
      event.preventDefault();
      send({ type: 'user.submit' });
    } else if (event.key === 'Escape') {
      if (open) {
        event.preventDefault();
        send({ type: 'user.close' });
      } else if (text !== '') {
        event.preventDefault();
        send({ type: 'user.type', text: '' });
      }
    }
  };

  return (
    <div className="symbol-search">
      <label htmlFor={inputId}>{props.label}</label>
      <input
        id={inputId}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open ? optionId(active) : undefined}
        autoComplete="off"
        spellCheck={false}
        maxLength={UNIVERSE_QUERY_MAX}
        placeholder={props.placeholder ?? 'Symbol or company name'}
        value={text}
        aria-invalid={props.invalid}
        aria-describedby={props.describedBy}
        disabled={props.disabled}
        onChange={(event) => {
          send({ type: 'user.type', text: event.target.value });
          props.onType?.(event.target.value);
        }}
        onKeyDown={onKeyDown}
        onFocus={() => send({ type: 'user.open' })}
        onBlur={() => send({ type: 'user.close' })}
      />
      <ul
        id={listId}
        role="listbox"
        aria-label={`${props.label}: matches`}
        hidden={!open}
        className="symbol-search-list"
      >
        {open &&
          results.map((hit, index) => (
            <li
              key={hit.symbol}
              id={optionId(index)}
              role="option"
              aria-selected={index === active}
              className={index === active ? 'active' : undefined}
              onMouseDown={(event) => event.preventDefault()}
              onMouseEnter={() => send({ type: 'user.highlight', index })}
              onClick={() => send({ type: 'user.pick', index })}
            >
              <span className="symbol-search-symbol">{hit.symbol}</span>
              <span className="symbol-search-name">{hit.name}</span>
              <span className="symbol-search-sector">
                {props.marked?.has(hit.symbol) ? (props.markedText ?? 'already added') : hit.sector}
              </span>
            </li>
          ))}
      </ul>
      <span className="symbol-search-status" role="status" aria-live="polite">
        {busy && text.trim() !== ''
          ? 'Searching…'
          : state.matches('failed')
            ? `Search failed: ${error ?? 'try again'}`
            : showing && results.length === 0
              ? `No company matches “${text.trim()}”`
              : ''}
      </span>
    </div>
  );
}
