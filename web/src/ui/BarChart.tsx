/** A small labelled SVG bar chart; the numbers are also in a table for screen readers. */
export function BarChart({ title, bars, unit }: { title: string; bars: { label: string; value: number }[]; unit: string }) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const w = 24;
  const h = 80;
  return (
    <figure className="chart">
      <svg width={bars.length * w} height={h + 4} role="img" aria-label={`${title}: ${bars.map((b) => `${b.label} ${b.value} ${unit}`).join(', ')}`}>
        {bars.map((b, i) => {
          const bh = Math.round((b.value / max) * h);
          return (
            <rect key={i} x={i * w + 3} y={h - bh + 2} width={w - 6} height={Math.max(bh, b.value > 0 ? 1 : 0)} className="bar">
              <title>{`${b.label}: ${b.value} ${unit}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption>{title}</figcaption>
    </figure>
  );
}
