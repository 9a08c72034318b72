import { Link } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { Empty, ErrorBanner, Loading, PageTitle, StatusBadge, Table } from '../ui/common';
import { useLoad } from '../ui/hooks';

export default function Campaigns() {
  const api = useApi();
  const list = useLoad(() => unwrap(api.GET('/api/user/campaigns')), []);
  return (
    <>
      <PageTitle actions={<Link className="button" to="/campaigns/new">New campaign</Link>}>Campaigns</PageTitle>
      <ErrorBanner error={list.error} />
      {list.loading && !list.data && <Loading what="campaigns" />}
      {list.data && list.data.length === 0 && <Empty>No campaigns yet. A campaign dials its leads with one outbound assistant.</Empty>}
      {list.data && list.data.length > 0 && (
        <Table caption="Your campaigns" columns={['Name', 'Status', 'Calling hours', 'Parallel calls', 'Created']}>
            {list.data.map((c) => (
              <tr key={c.id}>
                <td>
                  <Link to={`/campaigns/${c.id}`}>{c.name}</Link>
                </td>
                <td>
                  <StatusBadge status={c.status} />
                </td>
                <td>
                  {c.allowed_hours_start_time}–{c.allowed_hours_end_time} {c.timezone}
                </td>
                <td>{c.max_calls_in_parallel}</td>
                <td>{c.created_at}</td>
              </tr>
            ))}
        </Table>
      )}
    </>
  );
}
