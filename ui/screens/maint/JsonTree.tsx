/**
 * A JSON value as a tree: objects and arrays fold open and shut (native details elements, so keyboard use comes
 * with them), scalars shown inline.
 */

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
    <li>
      <details open={depth < 2}>
        <summary>
          {label}
          <span className="json-count">
            {brackets[0]} {entries.length} {Array.isArray(value) ? 'items' : 'keys'} {brackets[1]}
          </span>
        </summary>
        <ul>
          {entries.map(([key, child]) => (
            <Node key={key} name={key} value={child} depth={depth + 1} />
          ))}
        </ul>
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
