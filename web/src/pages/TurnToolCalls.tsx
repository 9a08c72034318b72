/**
 * The functions the model called during a call (GET /api/user/calls/{id}/turns, `tool_calls`):
 * per turn, each mid-call tool, built-in or knowledge search, with what was asked, what came back,
 * whether it worked and how long it took. Nothing is shown for a call without function calls.
 */
import { Table } from '../ui/common';

interface ToolCall {
  at_ms: number;
  name: string;
  arguments: string;
  ok: boolean;
  answer: string;
  duration_ms: number;
}

interface Turn {
  position: number;
  started_at: string;
  tool_calls: ToolCall[];
}

/** JSON text shown compactly (a model's arguments may come with any spacing); other text as it is. */
function compact(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

/** A tool's HTTP status from its answer (`{"status": 200, "body": …}`), when it has one. */
function httpStatus(answer: string): number | null {
  try {
    const parsed = JSON.parse(answer) as { status?: unknown };
    return typeof parsed.status === 'number' ? parsed.status : null;
  } catch {
    return null;
  }
}

export function TurnToolCalls({ turns }: { turns: Turn[] }) {
  const rows = turns.flatMap((t) => t.tool_calls.map((c, i) => ({ turn: t, call: c, key: `${t.position}-${i}` })));
  if (rows.length === 0) return null;
  return (
    <>
      <h3 id="tool-calls-heading">Tool calls</h3>
      <Table caption="Tool calls per turn" columns={['Turn', 'Time', 'Function', 'Request', 'Answer', 'Result', 'Took']}>
        {rows.map(({ turn, call, key }) => {
          const at = new Date(Date.parse(turn.started_at) + call.at_ms);
          const status = httpStatus(call.answer);
          return (
            <tr key={key}>
              <td>{turn.position + 1}</td>
              <td>
                <time dateTime={at.toISOString()} title={`${at.toISOString().replace('T', ' ').slice(0, 23)} UTC`}>
                  {at.toLocaleTimeString()}
                </time>
              </td>
              <td className="mono">{call.name}</td>
              <td className="mono wrap">{compact(call.arguments) || '—'}</td>
              <td className="mono wrap">{compact(call.answer)}</td>
              <td>{call.ok ? `ok${status !== null ? ` (${status})` : ''}` : `failed${status !== null ? ` (${status})` : ''}`}</td>
              <td>{call.duration_ms} ms</td>
            </tr>
          );
        })}
      </Table>
    </>
  );
}
