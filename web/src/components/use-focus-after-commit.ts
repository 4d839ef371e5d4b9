import { type RefObject, useEffect, useState } from 'react';

/**
 * Moves focus to an element once the render that shows it is committed. Closing a dialog renders
 * what takes its place (after a publish, the badge instead of the button), and an update made
 * after a request is rendered in a task of its own: a focus call from `requestAnimationFrame`
 * could run before that render and find no element, leaving focus nowhere.
 *
 * @example const focusAfterCommit = useFocusAfterCommit();
 * const close = (done: boolean) => { setOpen(false); focusAfterCommit(done ? badge : opener); };
 */
export function useFocusAfterCommit(): (target: RefObject<HTMLElement | null>) => void {
  const [target, setTarget] = useState<RefObject<HTMLElement | null>>();
  useEffect(() => {
    if (target === undefined) return;
    target.current?.focus();
    setTarget(undefined);
  }, [target]);
  return setTarget;
}
