import { Link } from 'react-router';
import type { paths } from '../api';
import { Empty, StatusBadge, Table } from './common';
import { When } from './format';

export type CallRecord = paths['/api/user/calls']['get']['responses'][200]['content']['application/json']['data'][number];

export function CallTable({ calls, caption }: { calls: CallRecord[]; caption: string }) {
  if (calls.length === 0) return <Empty>No calls match.</Empty>;
  return (
    <Table className="calls" caption={caption} columns={['Call', 'When', 'Status', 'Type', 'Customer', 'Assistant', 'Campaign', 'Duration']}>
        {calls.map((c) => (
          <tr key={c.id}>
            <td>
              <Link to={`/calls/${c.id}`}>#{c.id}</Link>
            </td>
            <td>
              <When utc={c.created_at} />
            </td>
            <td>
              <StatusBadge status={c.status} />
            </td>
            <td>{c.type}</td>
            <td className="mono">{c.client_phone_number}</td>
            <td>{c.assistant_name}</td>
            <td>{c.campaign_name ?? '—'}</td>
            <td>{c.duration} s</td>
          </tr>
        ))}
    </Table>
  );
}
