import { useId, useLayoutEffect, useRef, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { ApiError } from '../api';
import { humanize } from './messages';

export function PageTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-title">
      <h1>{children}</h1>
      {actions && <div className="actions">{actions}</div>}
    </div>
  );
}

/** The service's message for a failed request (not the field messages: the fields show those). */
export function ErrorBanner({ error }: { error: ApiError | null | undefined }) {
  if (!error) return null;
  return (
    <p className="error-banner" role="alert">
      {humanize(error.message)}
    </p>
  );
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <p className="notice" role="status">
      {children}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return <p aria-busy="true">Loading {what}…</p>;
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** A pager for the service's pagination envelope. */
export function Pager({ page, lastPage, total, onPage, label }: { page: number; lastPage: number; total: number; onPage(p: number): void; label: string }) {
  const jumpId = useId();
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Previous page
      </button>
      <span>
        Page {page} of {lastPage} ({total.toLocaleString('en')} in all)
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= lastPage}>
        Next page
      </button>
      {lastPage > 1 && (
        <form
          className="pager-jump"
          onSubmit={(e) => {
            e.preventDefault();
            const wanted = Number(new FormData(e.currentTarget).get('page'));
            if (Number.isInteger(wanted)) onPage(Math.min(lastPage, Math.max(1, wanted)));
          }}
        >
          <label htmlFor={jumpId}>Go to page</label>
          <input id={jumpId} name="page" type="number" min={1} max={lastPage} defaultValue={page} key={page} inputMode="numeric" />
          <button type="submit" className="secondary">
            Go
          </button>
        </form>
      )}
    </nav>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.replace(/[^a-z]/g, '-')}`}>{status}</span>;
}

export function BackLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <p className="back">
      <Link to={to}>← {children}</Link>
    </p>
  );
}

/** A table with a caption (read by screen readers; shown only when `showCaption`) and column headers. */
/**
 * A table's sortable columns: each named column's sort key (`created_at` …), the current order
 * (`-created_at` is that column descending) and what to do when a header is pressed. A header
 * says its state to assistive technology with aria-sort; the first press orders descending
 * (newest, longest, dearest first), the next ascending.
 */
export interface TableSort {
  columns: Record<string, string>;
  current: string;
  onSort: (sort: string) => void;
}

export function Table({ caption, columns, children, className, showCaption, sort }: { caption: string; columns: string[]; children: ReactNode; className?: string; showCaption?: boolean; sort?: TableSort }) {
  // On a phone each row becomes a card whose cells say their column (data-label, see styles.css).
  const ref = useRef<HTMLTableElement>(null);
  useLayoutEffect(() => {
    for (const row of ref.current?.tBodies[0]?.rows ?? []) {
      [...row.cells].forEach((cell, i) => {
        if (columns[i] !== undefined && cell.dataset.label !== columns[i]) cell.dataset.label = columns[i];
      });
    }
  });
  const header = (c: string) => {
    const key = sort?.columns[c];
    if (!sort || !key) return <th scope="col" key={c}>{c}</th>;
    const state = sort.current === key ? 'ascending' : sort.current === `-${key}` ? 'descending' : 'none';
    const next = state === 'descending' ? key : `-${key}`;
    return (
      <th scope="col" key={c} aria-sort={state}>
        <button type="button" className="sort-button" onClick={() => sort.onSort(next)}>
          {c}
          <span aria-hidden="true">{state === 'ascending' ? ' ▲' : state === 'descending' ? ' ▼' : ' ↕'}</span>
        </button>
      </th>
    );
  };
  return (
    <table className={`cards${className ? ` ${className}` : ''}`} ref={ref}>
      <caption className={showCaption ? undefined : 'visually-hidden'}>{caption}</caption>
      <thead>
        <tr>{columns.map(header)}</tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
