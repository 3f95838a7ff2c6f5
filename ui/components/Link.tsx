/** An in-app link: a real anchor (open in a new tab works) that navigates without a reload. */
import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { navigate } from '../services/router.ts';

/** A link to a path of the app. */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { readonly to: string }) {
  const { to, onClick, ...rest } = props;
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={follow} {...rest} />;
}
