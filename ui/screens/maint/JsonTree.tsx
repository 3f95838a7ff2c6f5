/**
 * A JSON value as a tree: objects and arrays fold open and shut (native details elements, so keyboard use comes
 * with them), scalars shown inline. A folded node draws none of its children, and a long list draws its items a
 * hundred at a time: the state of a user with 2,000 trades is half a megabyte, and drawing all of it (folded parts
 * too) at each step of the audit's time slider held the page for seconds.
 */
import { useState, type ReactNode } from 'react';

/** Items of a list drawn at first, and added by each "show more". */
export const JSON_TREE_PAGE = 100;

function Scalar({ value }: { readonly value: unknown }) {
  if (value === null || value === undefined) return <span className="json-null">null</span>;
  if (typeof value === 'string') return <span className="json-string">{JSON.stringify(value)}</span>;
  if (typeof value === 'number') return <span className="json-number">{value}</span>;
  if (typeof value === 'boolean') return <span className="json-boolean">{String(value)}</span>;
  return <span>{JSON.stringify(value)}</span>;
}

function Node({
  name,
  value,
  depth,
}: {
  readonly name: string | null;
  readonly value: unknown;
  readonly depth: number;
}) {
  const label = name === null ? null : <span className="json-key">{name}: </span>;
  if (value === null || typeof value !== 'object') {
    return (
      <li>
        {label}
        <Scalar value={value} />
      </li>
    );
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value as Record<string, unknown>);
  const brackets = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    return (
      <li>
        {label}
        <span className="json-empty">{brackets.join('')}</span>
      </li>
    );
  }
  return (
    <Branch
      label={label}
      entries={entries}
      depth={depth}
      count={`${brackets[0]} ${entries.length} ${Array.isArray(value) ? 'items' : 'keys'} ${brackets[1]}`}
    />
  );
}

/** An object or a list: its children drawn only while open, the first hundred and more on demand. */
function Branch({
  label,
  entries,
  depth,
  count,
}: {
  readonly label: ReactNode;
  readonly entries: readonly [string, unknown][];
  readonly depth: number;
  readonly count: string;
}) {
  const [open, setOpen] = useState(depth < 2);
  const [shown, setShown] = useState(JSON_TREE_PAGE);
  const more = Math.min(JSON_TREE_PAGE, entries.length - shown);
  return (
    <li>
      <details open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>
          {label}
          <span className="json-count">{count}</span>
        </summary>
        {open && (
          <ul>
            {entries.slice(0, shown).map(([key, child]) => (
              <Node key={key} name={key} value={child} depth={depth + 1} />
            ))}
            {more > 0 && (
              <li>
                <button type="button" className="button small" onClick={() => setShown(shown + JSON_TREE_PAGE)}>
                  Show {more} more (of {entries.length.toLocaleString('en-US')})
                </button>
              </li>
            )}
          </ul>
        )}
      </details>
    </li>
  );
}

/** A JSON value as a foldable tree. */
export function JsonTree({ value, label }: { readonly value: unknown; readonly label: string }) {
  return (
    <ul className="json-tree" aria-label={label}>
      <Node name={null} value={value} depth={0} />
    </ul>
  );
}
