/**
 * What a long form needs so nobody loses work or hunts for an error: a summary of the fields the
 * service refused, at the top, each a link to its field, with the focus moved to the first; and a
 * guard that asks before leaving with unsaved changes (in-app links and closing the tab alike).
 */
import { useEffect, useRef, useState, type RefObject } from 'react';
import { useBlocker } from 'react-router';
import type { ApiError } from '../api';

interface Problem {
  id: string;
  label: string;
  message: string;
}

/** The invalid controls of `form`, in page order, with their labels and messages. */
function problemsIn(form: HTMLFormElement): Problem[] {
  return [...form.querySelectorAll<HTMLElement>('[aria-invalid="true"]')].map((el) => {
    const label = el.id ? form.querySelector(`label[for="${CSS.escape(el.id)}"]`)?.textContent ?? el.getAttribute('aria-label') ?? el.id : '';
    const message = el.id ? document.getElementById(`${el.id}-error`)?.textContent ?? '' : '';
    return { id: el.id, label: label.trim(), message: message.trim() };
  });
}

/**
 * Shown after a submit the service refused with field errors: "2 fields need attention" and a
 * link to each; the first invalid field gets the focus.
 */
export function ErrorSummary({ error, form }: { error: ApiError | null; form: RefObject<HTMLFormElement | null> }) {
  const [problems, setProblems] = useState<Problem[]>([]);
  useEffect(() => {
    const el = form.current;
    if (!el || !error?.errors || Object.keys(error.errors).length === 0) return setProblems([]);
    // After React has rendered the fields' messages.
    const frame = requestAnimationFrame(() => {
      const found = problemsIn(el);
      setProblems(found);
      if (found[0]?.id) document.getElementById(found[0].id)?.focus();
    });
    return () => cancelAnimationFrame(frame);
  }, [error, form]);
  if (problems.length === 0) return null;
  return (
    <div className="error-summary" role="alert" aria-labelledby="error-summary-heading">
      <h2 id="error-summary-heading">{problems.length === 1 ? '1 field needs attention' : `${problems.length} fields need attention`}</h2>
      <ul>
        {problems.map((p) => (
          <li key={p.id}>
            <a
              href={`#${p.id}`}
              onClick={(e) => {
                e.preventDefault();
                document.getElementById(p.id)?.focus();
              }}
            >
              {p.label}
            </a>
            {p.message && `: ${p.message}`}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Asks before the page is left while `dirty`: a confirm for links inside the dashboard, the
 * browser's own prompt for the tab. Returns `letGo()`, for a navigation the form makes itself
 * after saving (it runs before the saved state has rendered).
 */
export function useUnsavedChangesGuard(dirty: boolean): () => void {
  const skip = useRef(false);
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && !skip.current && currentLocation.pathname !== nextLocation.pathname);
  const asked = useRef(false);
  useEffect(() => {
    if (blocker.state !== 'blocked' || asked.current) return;
    asked.current = true;
    if (window.confirm('You have unsaved changes. Leave this page and lose them?')) blocker.proceed();
    else blocker.reset();
    asked.current = false;
  }, [blocker]);
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);
  return () => {
    skip.current = true;
  };
}
