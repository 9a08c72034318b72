/**
 * The knowledge base's passages a call's turns used (GET /api/user/calls/{id}/turns, `knowledge`):
 * per turn, each search the model made (function_call mode) or what prompt mode put before the
 * reply, with the document, the passage's headings and its score. Nothing is shown for a call whose
 * assistant has no knowledge base.
 */
import { Table } from '../ui/common';

interface Lookup {
  mode: 'function_call' | 'prompt';
  query: string | null;
  passages: { document_id: number; document_name: string; chunk_id: number | null; heading: string; score: number | null }[];
}

interface Turn {
  position: number;
  knowledge: Lookup[];
}

function how(l: Lookup): string {
  if (l.mode === 'function_call') return `searched “${l.query ?? ''}”`;
  return l.query === null ? 'whole base in the prompt' : `found for “${l.query}”`;
}

export function TurnKnowledge({ turns }: { turns: Turn[] }) {
  const rows = turns.flatMap((t) => t.knowledge.map((l, i) => ({ turn: t.position, key: `${t.position}-${i}`, lookup: l })));
  if (rows.length === 0) return null;
  return (
    <>
      <h3 id="knowledge-heading">Knowledge base passages</h3>
      <Table caption="Knowledge base passages used per turn" columns={['Turn', 'How', 'Document', 'Passage', 'Score']}>
        {rows.flatMap(({ turn, key, lookup }) =>
          (lookup.passages.length > 0 ? lookup.passages : [null]).map((p, j) => (
            <tr key={`${key}-${j}`}>
              <td>{turn + 1}</td>
              <td>{how(lookup)}</td>
              <td>{p ? p.document_name : 'nothing found'}</td>
              <td>{p ? (p.chunk_id === null ? 'the whole document' : `${p.heading || '(no heading)'} · passage ${p.chunk_id}`) : '—'}</td>
              <td>{p?.score == null ? '—' : p.score.toFixed(4)}</td>
            </tr>
          )),
        )}
      </Table>
    </>
  );
}
