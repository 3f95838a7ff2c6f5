/**
 * The clause builder: type, parameter, operator and value (a number, a range, a cap class or another column
 * such as "SMA 200 > SMA 50"), with an optional label. It only holds the texts being typed; the page's machine
 * checks the clause (a value that is not a number where one is expected is refused as "Value: enter a number",
 * the rest with the screener language) and keeps the message of a refusal.
 */
import { cloneElement, useId, useState, type FormEvent, type ReactElement } from 'react';
import { SECTORS } from '../../../domain/market/types.ts';
import { METRICS, PERF_PERIODS, PRICE_SMA_PERIODS, metricInfo } from '../../../domain/screener/metrics.ts';
import { ANY_BULLISH_PATTERN, CAP_CLASSES, SMA_PERIODS } from '../../../domain/screener/query.ts';
import { PATTERNS } from '../../../domain/screener/patterns.ts';
import {
  EMPTY_DRAFT,
  defaultParamOf,
  draftToClause,
  isCategoryType,
  isMetricType,
  operatorsOf,
  referencesOf,
  type ClauseDraft,
} from './search.logic.ts';

const TYPES: readonly { type: ClauseDraft['type']; text: string; title?: string }[] = [
  { type: 'mcap', text: 'Market cap' },
  { type: 'close', text: 'Close' },
  { type: 'SMA', text: 'SMA' },
  { type: 'rsi', text: 'RSI 14' },
  { type: 'pattern', text: 'Pattern' },
  { type: 'sector', text: 'Sector' },
  { type: 'industry', text: 'Industry' },
  ...METRICS.map((m) => ({ type: m.type, text: m.label, title: m.definition })),
];

/** The hint of the value field of a type. */
function amountHintOf(type: ClauseDraft['type']): string {
  if (type === 'mcap') return 'e.g. 10B or 500M';
  if (type === 'rsi') return '0 to 100';
  if (isMetricType(type)) {
    const { unit } = metricInfo(type);
    return unit === '%' ? 'percent' : unit === 'shares' ? 'e.g. 5M' : unit === 'days' ? 'trading days' : 'a number';
  }
  return 'a price';
}

/** A labelled field: the label names its control by id, so the control's name is the label's text alone. */
function Field({ label, children }: { readonly label: string; readonly children: ReactElement<{ id?: string }> }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id })}
    </div>
  );
}

/** A labelled choice among texts. */
function Choice({
  label,
  value,
  options,
  text = (option) => option,
  onPick,
}: {
  readonly label: string;
  readonly value: string;
  readonly options: readonly string[];
  readonly text?: (option: string) => string;
  readonly onPick: (option: string) => void;
}) {
  return (
    <Field label={label}>
      <select value={value} onChange={(e) => onPick(e.target.value)}>
        {options.map((option) => (
          <option key={option} value={option}>
            {text(option)}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** Props of {@link ClauseBuilder}. */
export interface ClauseBuilderProps {
  /** Why the last clause was refused, or null. */
  readonly error: string | null;
  /** The universe's industries, offered as the industry clause's value is typed. */
  readonly industries: readonly string[];
  /** Adds the clause the fields spell (raw; the machine validates it). */
  readonly onAdd: (clause: Record<string, unknown>, label: string) => void;
}

/** The clause builder form. */
export function ClauseBuilder({ error, industries, onAdd }: ClauseBuilderProps) {
  const [draft, setDraft] = useState<ClauseDraft>(EMPTY_DRAFT);
  const id = useId();
  const errorId = `${id}-error`;
  const operators = operatorsOf(draft.type);
  const references = referencesOf(draft.type, draft.param);
  const change = (patch: Partial<ClauseDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const changeType = (type: ClauseDraft['type']) =>
    change({
      type,
      op: operatorsOf(type)[type === 'pattern' || isCategoryType(type) ? 0 : 1]?.op ?? '>',
      param: defaultParamOf(type),
      ref: '',
      value: type === 'sector' ? SECTORS[0] : '',
      value2: '',
    });
  const isClass = draft.type === 'mcap' && (draft.op === 'like' || draft.op === 'not_like');
  const isCategory = isCategoryType(draft.type);
  const isRange = draft.op === 'bet';
  const usesReference = !isRange && references.length > 0;
  const amountHint = amountHintOf(draft.type);
  // A refusal naming a number's control marks that one only (`To: must not be below From`), any other every field.
  const refuses = (label: string) =>
    error !== null && (error.startsWith(`${label}:`) || !/^(?:Value|From|To): /.test(error));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onAdd(draftToClause(draft), draft.label);
  };

  return (
    <form className="clause-builder" onSubmit={submit} aria-label="Clause builder">
      <Field label="Type">
        <select value={draft.type} onChange={(e) => changeType(e.target.value as ClauseDraft['type'])}>
          {TYPES.map((t) => (
            <option key={t.type} value={t.type} title={t.title}>
              {t.text}
            </option>
          ))}
        </select>
      </Field>
      {draft.type === 'SMA' && (
        <Field label="Period">
          <select value={draft.param} onChange={(e) => change({ param: e.target.value, ref: '' })}>
            {SMA_PERIODS.map((p) => (
              <option key={p} value={String(p)}>
                {p} days
              </option>
            ))}
          </select>
        </Field>
      )}
      {draft.type === 'perf' && (
        <Choice label="Period" value={draft.param} options={PERF_PERIODS} onPick={(param) => change({ param })} />
      )}
      {draft.type === 'price_vs_sma' && (
        <Choice
          label="Average"
          value={draft.param}
          options={PRICE_SMA_PERIODS.map(String)}
          text={(p) => `SMA ${p}`}
          onPick={(param) => change({ param })}
        />
      )}
      {draft.type === 'pattern' && (
        <Field label="Pattern">
          <select value={draft.pattern} onChange={(e) => change({ pattern: e.target.value })}>
            <option value={ANY_BULLISH_PATTERN}>Any bullish pattern</option>
            {PATTERNS.map((p) => (
              <option key={p.name} value={p.name}>
                {p.label}
              </option>
            ))}
          </select>
        </Field>
      )}
      <Field label="Operator">
        <select value={draft.op} onChange={(e) => change({ op: e.target.value })}>
          {operators.map((o) => (
            <option key={o.op} value={o.op}>
              {o.text}
            </option>
          ))}
        </select>
      </Field>
      {usesReference && (
        <Field label="Compare with">
          <select value={draft.ref} onChange={(e) => change({ ref: e.target.value })}>
            <option value="">A number</option>
            {references.map((r) => (
              <option key={r.ref} value={r.ref}>
                {r.text}
              </option>
            ))}
          </select>
        </Field>
      )}
      {isClass && (
        <Field label="Cap class">
          <select value={draft.capClass} onChange={(e) => change({ capClass: e.target.value })}>
            {CAP_CLASSES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </Field>
      )}
      {draft.type === 'sector' && (
        <Choice label="Sector" value={draft.value} options={SECTORS} onPick={(value) => change({ value })} />
      )}
      {draft.type === 'industry' && (
        <>
          <Field label="Industry">
            <input
              value={draft.value}
              maxLength={100}
              size={22}
              placeholder="e.g. Semiconductors"
              list={`${id}-industries`}
              aria-invalid={refuses('Industry')}
              aria-describedby={error ? errorId : undefined}
              onChange={(e) => change({ value: e.target.value })}
            />
          </Field>
          <datalist id={`${id}-industries`}>
            {industries.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </>
      )}
      {draft.type !== 'pattern' && !isCategory && !isClass && !(usesReference && draft.ref !== '') && (
        <>
          <Field label={isRange ? 'From' : 'Value'}>
            <input
              value={draft.value}
              inputMode="decimal"
              placeholder={amountHint}
              size={10}
              aria-invalid={refuses(isRange ? 'From' : 'Value')}
              aria-describedby={error ? errorId : undefined}
              onChange={(e) => change({ value: e.target.value })}
            />
          </Field>
          {isRange && (
            <Field label="To">
              <input
                value={draft.value2}
                inputMode="decimal"
                placeholder={amountHint}
                size={10}
                aria-invalid={refuses('To')}
                aria-describedby={error ? errorId : undefined}
                onChange={(e) => change({ value2: e.target.value })}
              />
            </Field>
          )}
        </>
      )}
      <Field label="Label (optional)">
        <input
          value={draft.label}
          maxLength={100}
          size={16}
          placeholder="described for you"
          onChange={(e) => change({ label: e.target.value })}
        />
      </Field>
      <button type="submit" className="button primary">
        Add clause
      </button>
      {error && (
        <p id={errorId} className="error clause-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
