/**
 * The Delete button of a saved item (a model, a snapshot).
 */

/** A Delete button with an accessible name, disabled and saying Deleting… while the delete runs. */
export function DeleteButton(props: {
  readonly label: string;
  readonly deleting: boolean;
  readonly onDelete: () => void;
}) {
  return (
    <button
      type="button"
      className="button"
      aria-label={props.label}
      disabled={props.deleting}
      onClick={props.onDelete}
    >
      {props.deleting ? 'Deleting…' : 'Delete'}
    </button>
  );
}
