/**
 * The three visible states of a load: a skeleton while loading, the content, or the message with a retry.
 */
import type { ReactNode } from 'react';

/** Skeleton lines shaped like the content that is coming. */
export function Skeleton({ lines = 3, height = 16 }: { readonly lines?: number; readonly height?: number }) {
  return (
    <div className="skeleton" aria-busy="true" aria-label="Loading">
      {Array.from({ length: lines }, (_, i) => (
        <div key={i} className="skeleton-line" style={{ height, width: `${90 - ((i * 17) % 40)}%` }} />
      ))}
    </div>
  );
}

/** A failed load: what went wrong and a retry. */
export function Failed({ message, onRetry }: { readonly message: string; readonly onRetry?: () => void }) {
  return (
    <div className="failed" role="alert">
      <span>{message}</span>
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

/** A failed change: its message and a button that dismisses it. */
export function Dismissible(props: {
  readonly message: string;
  readonly onDismiss: () => void;
  readonly className?: string;
  readonly small?: boolean;
  /** The element's id, for the fields the failure is about to be described by it. */
  readonly id?: string;
}) {
  return (
    <div id={props.id} className={props.className ? `failed ${props.className}` : 'failed'} role="alert">
      <span>{props.message}</span>
      <button type="button" className={props.small ? 'button small' : 'button'} onClick={props.onDismiss}>
        Dismiss
      </button>
    </div>
  );
}

/** Shows the skeleton, the failure, or the children. */
export function LoadState(props: {
  readonly loading: boolean;
  readonly error: string | null;
  readonly onRetry?: () => void;
  readonly lines?: number;
  readonly children: ReactNode;
}) {
  if (props.loading) return <Skeleton lines={props.lines ?? 3} />;
  if (props.error) return <Failed message={props.error} {...(props.onRetry ? { onRetry: props.onRetry } : {})} />;
  return <>{props.children}</>;
}

/** An empty state that says what to do. */
export function Empty({ children }: { readonly children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
