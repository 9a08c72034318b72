import { Link } from 'react-router';
import type { paths } from '../api';
import { Empty, StatusBadge, Table, type TableSort } from './common';
import { formatCost, useCostCurrency, When } from './format';

export type CallRecord = paths['/api/user/calls']['get']['responses'][200]['content']['application/json']['data'][number];

/** The list's orders by column header (the API's `sort` keys). */
const SORTABLE = { When: 'created_at', Duration: 'duration', Cost: 'total_cost' };

export function CallTable({ calls, caption, sort, onSort }: { calls: CallRecord[]; caption: string; sort?: string; onSort?: (sort: string) => void }) {
  const currency = useCostCurrency();
  if (calls.length === 0) return <Empty>No calls match.</Empty>;
  const sorting: TableSort | undefined = onSort ? { columns: SORTABLE, current: sort ?? '-created_at', onSort } : undefined;
  return (
    <Table className="calls" caption={caption} sort={sorting} columns={['Call', 'When', 'Status', 'Type', 'Customer', 'Assistant', 'Campaign', 'Duration', 'Cost']}>
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
            <td>{formatCost(c.total_cost, currency)}</td>
          </tr>
        ))}
    </Table>
  );
}
