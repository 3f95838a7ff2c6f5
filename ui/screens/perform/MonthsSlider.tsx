/** The slider of the analysis charts: the number of months the % change spans (3 to 60, 3 by default). */
import { SLIDER_MONTHS } from './lines.ts';

/** Months of history, as a slider with its value shown. */
export function MonthsSlider({
  months,
  onChange,
}: {
  readonly months: number;
  readonly onChange: (months: number) => void;
}) {
  const text = months === 1 ? '1 month' : `${months} months`;
  return (
    <label className="months-slider">
      <span>
        Period: <output>{text}</output>
      </span>
      <input
        type="range"
        min={SLIDER_MONTHS.min}
        max={SLIDER_MONTHS.max}
        step={1}
        value={months}
        aria-valuetext={text}
        aria-label="Months"
        onChange={(event) => onChange(Number(event.target.value))}
      />
    </label>
  );
}
