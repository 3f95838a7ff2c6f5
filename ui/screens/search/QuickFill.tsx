/**
 * The quick-fill list: the six presets and the user's saved queries filtered by a free text, on a dark
 * background where saved queries read in white. A name applies its query; "+" adds its clauses to the query
 * being built; saved queries can be deleted, once the ✕ is confirmed.
 */
import { useState } from 'react';
import type { LabelledClause } from '../../../domain/screener/query.ts';
import { ConfirmBar } from '../../components/ConfirmBar.tsx';
import { Failed, Skeleton } from '../../components/LoadState.tsx';
import { quickFillOptions, type Preset, type SavedQuery } from './search.logic.ts';

/** Props of {@link QuickFill}. */
export interface QuickFillProps {
  readonly presets: readonly Preset[];
  readonly saved: readonly SavedQuery[];
  readonly loading: boolean;
  readonly error: string | null;
  readonly onRetry: () => void;
  readonly onApply: (name: string, clauses: readonly LabelledClause[]) => void;
  readonly onAdd: (clauses: readonly LabelledClause[]) => void;
  readonly onDelete: (id: string) => void;
  /** The id of the saved query whose deletion waits to be confirmed, if any. */
  readonly confirming: string | null;
  readonly onConfirmDelete: () => void;
  readonly onKeep: () => void;
}

/** The quick-fill input and list. */
export function QuickFill(props: QuickFillProps) {
  const [text, setText] = useState('');
  const options = quickFillOptions(props.presets, props.saved, text);
  return (
    <div className="quick-fill">
      <label>
        Quick fill
        <input
          type="search"
          value={text}
          placeholder="Filter presets and saved queries"
          onChange={(e) => setText(e.target.value)}
        />
      </label>
      {props.loading ? (
        <Skeleton lines={6} />
      ) : props.error ? (
        <Failed message={props.error} onRetry={props.onRetry} />
      ) : (
        <ul className="quick-fill-list" aria-label="Presets and saved queries">
          {options.length === 0 && (
            <li className="quick-fill-empty">Nothing matches “{text}”: clear the text to see every query.</li>
          )}
          {options.map((option) => (
            <li key={`${option.kind}:${option.key}`} className={`quick-fill-item ${option.kind}`}>
              <button
                type="button"
                className="quick-fill-name"
                style={{ color: option.color }}
                title={option.query.map((c) => c.label).join(' and ')}
                onClick={() => props.onApply(option.name, option.query)}
              >
                {option.name}
              </button>
              <span className="quick-fill-kind">{option.kind === 'saved' ? 'saved' : 'preset'}</span>
              <button
                type="button"
                className="icon-button small"
                aria-label={`Add the clauses of ${option.name}`}
                title="Add its clauses to the query"
                onClick={() => props.onAdd(option.query)}
              >
                +
              </button>
              {option.kind === 'saved' && props.confirming !== option.key && (
                <button
                  type="button"
                  className="icon-button small"
                  aria-label={`Delete saved query ${option.name}`}
                  title="Delete"
                  onClick={() => props.onDelete(option.key)}
                >
                  ✕
                </button>
              )}
              {option.kind === 'saved' && props.confirming === option.key && (
                <ConfirmBar
                  title={`Delete saved query ${option.name}?`}
                  question="Delete this saved query?"
                  confirm="Delete"
                  onConfirm={props.onConfirmDelete}
                  onKeep={props.onKeep}
                />
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
