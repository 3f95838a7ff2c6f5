/** ▲, ▼ or ◆ before an alert, coloured by the way it waits for its source to go (`condition` when either way). */
import type { AlertAnswer } from '../../domain/contract/alerts.ts';
import { alertWay, wayMark } from './alertWords.ts';

export function AlertWayMark(props: { alert: Pick<AlertAnswer, 'kind' | 'alerttype' | 'condition'> }) {
  const way = alertWay(props.alert);
  return (
    <span className={way ?? 'condition'} aria-hidden="true">
      {wayMark(way)}
    </span>
  );
}
