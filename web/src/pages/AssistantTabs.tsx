/** The assistant pages' tabs: its settings, and its tests. */
import { Link } from 'react-router';

export function AssistantTabs({ id, current }: { id: string; current: 'settings' | 'tests' }) {
  return (
    <nav className="tabs" aria-label="Assistant">
      <Link to={`/assistants/${id}`} aria-current={current === 'settings' ? 'page' : undefined}>
        Settings
      </Link>
      <Link to={`/assistants/${id}/tests`} aria-current={current === 'tests' ? 'page' : undefined}>
        Tests
      </Link>
    </nav>
  );
}
