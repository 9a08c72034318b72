/**
 * Bar charts drawn as SVG at the width they get (so labels stay legible on a phone): a y axis
 * with round ticks, x labels thinned to fit, each bar's numbers on hover, and a legend when
 * bars are stacked. The picture is one image to screen readers (its label sums it up); the
 * numbers themselves are in a table next to it (`ChartTable`).
 */
import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { Table } from './common';

export interface Series {
  key: string;
  label: string;
  color: string;
}

/** Round tick values from 0 to at least `max` (about four steps of 1, 2 or 5 × 10ⁿ; whole numbers when `integer`). */
export function niceTicks(max: number, integer: boolean): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 4;
  const pow = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  if (integer) step = Math.max(1, Math.round(step));
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1] < max) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return ticks;
}

function useWidth(fallback: number) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(fallback);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setWidth(Math.max(200, Math.floor(el.clientWidth)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

const HEIGHT = 180;
const M = { top: 10, right: 8, bottom: 24, left: 56 };

/**
 * Stacked bars: `values[i][s]` is series `s` of bar `i`. `format` writes a value (ticks, hover);
 * `integer` keeps ticks whole.
 */
export function StackedBarChart(props: {
  title: string;
  labels: string[];
  series: Series[];
  values: number[][];
  format?: (n: number) => string;
  integer?: boolean;
  summary?: string;
  testId?: string;
  children?: ReactNode;
}) {
  const { labels, series, values } = props;
  const format = props.format ?? ((n: number) => n.toLocaleString());
  const { ref, width } = useWidth(640);
  const totals = values.map((v) => v.reduce((a, b) => a + b, 0));
  const ticks = niceTicks(Math.max(0, ...totals), props.integer ?? false);
  const top = ticks[ticks.length - 1];
  const plotW = width - M.left - M.right;
  const plotH = HEIGHT - M.top - M.bottom;
  const slot = plotW / Math.max(1, labels.length);
  const gap = slot > 6 ? Math.max(1, slot * 0.2) : 0;
  const y = (v: number) => M.top + plotH - (v / top) * plotH;
  // Enough room for each x label: about 48 px apart.
  const every = Math.max(1, Math.ceil(48 / slot));
  return (
    <figure className="chart" data-testid={props.testId}>
      <figcaption>{props.title}</figcaption>
      {series.length > 1 && (
        <ul className="legend" aria-hidden="true">
          {series.map((s) => (
            <li key={s.key}>
              <span className="swatch" style={{ background: s.color }} />
              {s.label}
            </li>
          ))}
        </ul>
      )}
      <div ref={ref} className="chart-area">
        <svg width={width} height={HEIGHT} role="img" aria-label={`${props.title}. ${props.summary ?? ''}`.trim()}>
          <g className="axis y-axis">
            {ticks.map((t) => (
              <g key={t}>
                <line x1={M.left} x2={width - M.right} y1={y(t)} y2={y(t)} className={t === 0 ? 'baseline' : 'grid'} />
                <text x={M.left - 6} y={y(t)} dy="0.32em" textAnchor="end">
                  {format(t)}
                </text>
              </g>
            ))}
          </g>
          <g className="bars">
            {values.map((v, i) => {
              let base = 0;
              return (
                <g key={i} data-total={totals[i]}>
                  <title>{`${labels[i]}: ${series.length > 1 ? `${format(totals[i])} (${series.map((s, k) => (v[k] ? `${s.label} ${format(v[k])}` : '')).filter(Boolean).join(', ') || 'none'})` : format(totals[i])}`}</title>
                  {v.map((value, k) => {
                    if (value <= 0) return null;
                    const y0 = y(base);
                    base += value;
                    const y1 = y(base);
                    return <rect key={k} x={M.left + i * slot + gap / 2} width={Math.max(1, slot - gap)} y={y1} height={Math.max(1, y0 - y1)} style={{ fill: series[k].color }} />;
                  })}
                  {/* Hover target over the whole slot, so empty days also say so. */}
                  <rect x={M.left + i * slot} width={slot} y={M.top} height={plotH} fill="transparent" />
                </g>
              );
            })}
          </g>
          <g className="axis x-axis">
            {labels.map((l, i) =>
              i % every === 0 ? (
                <text key={i} x={M.left + i * slot + slot / 2} y={HEIGHT - 6} textAnchor="middle">
                  {l}
                </text>
              ) : null,
            )}
          </g>
        </svg>
      </div>
      {props.children}
    </figure>
  );
}

/** The chart's numbers as a table (in a disclosure): one row per bar, one column per series. */
export function ChartTable({ caption, first, labels, series, values, format, total }: {
  caption: string;
  first: string;
  labels: string[];
  series: Series[];
  values: number[][];
  format: (n: number) => string;
  total?: string;
}) {
  const columns = [first, ...series.map((s) => s.label), ...(total ? [total] : [])];
  return (
    <details className="chart-numbers">
      <summary>Show the numbers as a table</summary>
      <Table caption={caption} columns={columns}>
        {labels.map((l, i) => (
          <tr key={i}>
            <th scope="row">{l}</th>
            {values[i].map((v, k) => (
              <td key={k}>{format(v)}</td>
            ))}
            {total && <td>{format(values[i].reduce((a, b) => a + b, 0))}</td>}
          </tr>
        ))}
      </Table>
    </details>
  );
}

/** One series of labelled bars (a campaign's calls per minute), with axes; the numbers are in the image's label. */
export function BarChart({ title, bars, unit }: { title: string; bars: { label: string; value: number }[]; unit: string }) {
  return (
    <div className="chart-small">
      <StackedBarChart
        title={title}
        labels={bars.map((b) => b.label)}
        series={[{ key: 'value', label: unit, color: 'var(--accent)' }]}
        values={bars.map((b) => [b.value])}
        integer
        format={(n) => n.toLocaleString()}
        summary={bars.map((b) => `${b.label} ${b.value} ${unit}`).join(', ')}
      />
    </div>
  );
}
