/** A row of tabs (role tablist) moved through with the arrow keys, Home and End. */
import type { KeyboardEvent, ReactNode } from 'react';

/** One tab. */
export interface TabItem<K extends string> {
  readonly key: K;
  readonly label: ReactNode;
}

/** The tabs; the selected one is the only one in the tab order. */
export function Tabs<K extends string>(props: {
  readonly label: string;
  readonly items: readonly TabItem<K>[];
  readonly selected: K | null;
  readonly idPrefix: string;
  readonly onSelect: (key: K) => void;
  readonly className?: string;
}) {
  const { items, selected } = props;
  const move = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const last = items.length - 1;
    const next =
      event.key === 'ArrowRight'
        ? index === last
          ? 0
          : index + 1
        : event.key === 'ArrowLeft'
          ? index === 0
            ? last
            : index - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : null;
    if (next === null) return;
    event.preventDefault();
    const item = items[next];
    if (!item) return;
    props.onSelect(item.key);
    document.getElementById(`${props.idPrefix}-tab-${item.key}`)?.focus();
  };
  return (
    <div role="tablist" aria-label={props.label} className={props.className ?? 'tabs'}>
      {items.map((item, i) => (
        <button
          key={item.key}
          type="button"
          role="tab"
          id={`${props.idPrefix}-tab-${item.key}`}
          aria-selected={item.key === selected}
          aria-controls={`${props.idPrefix}-panel`}
          tabIndex={item.key === selected || (selected === null && i === 0) ? 0 : -1}
          className={item.key === selected ? 'tab active' : 'tab'}
          onClick={() => props.onSelect(item.key)}
          onKeyDown={(event) => move(event, i)}
        >
          {item.label}
        </button>
      ))}
    </div>
  );
}
