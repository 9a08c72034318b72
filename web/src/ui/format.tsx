/**
 * How amounts and times read in the dashboard: a call's cost in the service's currency
 * (COST_CURRENCY, from GET /api/user/display-settings) with as many decimals as a small amount
 * needs, and a time in the browser's time zone with the UTC time on hover.
 */
import { useEffect, useState } from 'react';
import { unwrap } from '../api';
import { useApi } from '../session';

/** Loaded once per page load: the currency is the service's, the same for every user. */
let currencyLoad: Promise<string> | null = null;

export function useCostCurrency(): string | null {
  const api = useApi();
  const [currency, setCurrency] = useState<string | null>(null);
  useEffect(() => {
    currencyLoad ??= unwrap(api.GET('/api/user/display-settings'))
      .then((r) => r.cost_currency)
      .catch(() => {
        currencyLoad = null; // try again on the next page; meanwhile amounts show without a symbol
        return '';
      });
    let live = true;
    void currencyLoad.then((c) => live && setCurrency(c));
    return () => {
      live = false;
    };
  }, [api]);
  return currency;
}

/** `0.00533334` USD → "$0.0053"; `12.5` → "$12.50"; without a currency, the number rounded the same way. */
export function formatCost(amount: string | number, currency: string | null): string {
  const n = Number(amount);
  if (!Number.isFinite(n)) return String(amount);
  const digits = n !== 0 && Math.abs(n) < 1 ? 4 : 2;
  if (!currency) return n.toFixed(digits);
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: digits }).format(n);
  } catch {
    return `${n.toFixed(digits)} ${currency}`;
  }
}

/** A UTC time from the API ("2026-11-29 10:00:03", or ISO 8601 with a zone). */
export function parseUtc(text: string): Date | null {
  const iso = /([zZ]|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text.replace(' ', 'T')}Z`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** The time in the browser's zone; the UTC time on hover. */
export function When({ utc }: { utc: string | null | undefined }) {
  if (!utc) return <>—</>;
  const d = parseUtc(utc);
  if (!d) return <>{utc}</>;
  return (
    <time dateTime={d.toISOString()} title={`${d.toISOString().replace('T', ' ').slice(0, 19)} UTC`}>
      {d.toLocaleString()}
    </time>
  );
}
