/**
 * A call's per-turn timings (GET /api/user/calls/{id}/turns) as a small chart: one bar per
 * turn from the caller's end of speech to the first audio frame sent, split into the stages
 * (final transcript, LLM first token, TTS first byte, first audio); interruptions and fillers
 * beside it. The same numbers are in the table below the chart, for screen readers too.
 */
import { Empty, Table } from '../ui/common';

/** A turn as GET /api/user/calls/{id}/turns answers it (the generated client's shape). */
interface Turn {
  position: number;
  kind: string;
  caller_text: string | null;
  assistant_text: string;
  interrupted: boolean;
  timings: { final_transcript_ms: number | null; llm_first_token_ms: number | null; tts_first_byte_ms: number | null; first_audio_ms: number | null };
  barge_ins: { at_ms: number; heard_text: string }[];
  fillers: { at_ms: number; text: string; reason: string }[];
}

const STAGES = [
  { key: 'final_transcript_ms', label: 'final transcript', color: '#98a2b3' },
  { key: 'llm_first_token_ms', label: 'LLM first token', color: '#1f5fd6' },
  { key: 'tts_first_byte_ms', label: 'TTS first byte', color: '#7a5af8' },
  { key: 'first_audio_ms', label: 'first audio sent', color: '#039855' },
] as const;

const ms = (v: number | null) => (v === null ? '—' : `${v} ms`);

export function TurnTimings({ turns }: { turns: Turn[] }) {
  const timed = turns.filter((t) => STAGES.some((s) => t.timings[s.key] !== null));
  if (turns.length === 0) return <Empty>No turns were recorded for this call.</Empty>;
  const max = Math.max(1, ...timed.flatMap((t) => STAGES.map((s) => t.timings[s.key] ?? 0)));
  const rowH = 18;
  const width = 480;
  const label = 70;
  return (
    <>
      {timed.length > 0 && (
        <figure className="chart turn-chart">
          <svg width={label + width + 10} height={timed.length * rowH + 24} role="img" aria-label="Stage timings per turn, in milliseconds from the caller's end of speech; the table below has the numbers">
            {timed.map((t, i) => {
              let from = 0;
              return (
                <g key={t.position} transform={`translate(0, ${i * rowH})`}>
                  <text x={0} y={rowH - 5} fontSize={11}>{`Turn ${t.position + 1}`}</text>
                  {STAGES.map((s) => {
                    const to = t.timings[s.key];
                    if (to === null) return null;
                    const x = label + (from / max) * width;
                    const w = Math.max(1, ((to - from) / max) * width);
                    from = Math.max(from, to);
                    return (
                      <rect key={s.key} x={x} y={3} width={w} height={rowH - 6} fill={s.color}>
                        <title>{`${s.label}: ${to} ms`}</title>
                      </rect>
                    );
                  })}
                </g>
              );
            })}
            <g transform={`translate(0, ${timed.length * rowH + 6})`}>
              {STAGES.map((s, i) => (
                <g key={s.key} transform={`translate(${label + i * 120}, 0)`}>
                  <rect width={10} height={10} fill={s.color} />
                  <text x={14} y={9} fontSize={11}>{s.label}</text>
                </g>
              ))}
            </g>
          </svg>
          <figcaption>Stage timings per turn (0 = the caller stopped speaking; longest bar {max} ms)</figcaption>
        </figure>
      )}
      <Table caption="Turns and their timings" columns={['Turn', 'Caller', 'Assistant', ...STAGES.map((s) => s.label), 'Notes']}>
        {turns.map((t) => (
          <tr key={t.position}>
            <td>{`${t.position + 1} (${t.kind})`}</td>
            <td>{t.caller_text ?? '—'}</td>
            <td>{t.assistant_text}</td>
            {STAGES.map((s) => (
              <td key={s.key}>{ms(t.timings[s.key])}</td>
            ))}
            <td>
              {[
                t.interrupted ? `interrupted (${t.barge_ins.map((b) => `at ${b.at_ms} ms`).join(', ')})` : '',
                ...t.fillers.map((f) => `filler “${f.text}” (${f.reason === 'tool' ? 'tool running' : 'slow LLM'})`),
              ]
                .filter(Boolean)
                .join('; ') || '—'}
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}
