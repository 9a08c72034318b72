import { Suspense } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useNavigation } from 'react-router';
import { useSession } from './session';

const USER_LINKS = [
  ['/', 'Results'],
  ['/assistants', 'Assistants'],
  ['/tools', 'Mid-call tools'],
  ['/knowledge', 'Knowledge'],
  ['/campaigns', 'Campaigns'],
  ['/leads', 'Leads'],
  ['/calls', 'Calls'],
  ['/account', 'Account'],
] as const;
const ADMIN_LINKS = [['/admin', 'Users and voices']] as const;

/** The signed-in shell: skip link, navigation, the page. Without a session it sends to sign-in. */
export function Layout() {
  const { session, signOut } = useSession();
  const location = useLocation();
  const navigation = useNavigation();
  if (!session) return <Navigate to="/sign-in" replace state={{ from: location.pathname }} />;
  const adminArea = location.pathname.startsWith('/admin');
  if (session.role === 'admin' && !adminArea) return <Navigate to="/admin" replace />;
  const links = session.role === 'admin' ? ADMIN_LINKS : USER_LINKS;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Switchboard</span>
        <nav aria-label="Main">
          <ul>
            {links.map(([to, label]) => (
              <li key={to}>
                <NavLink to={to} end={to === '/'}>
                  {label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>{session.name}</span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} aria-busy={navigation.state === 'loading'}>
        <Suspense fallback={<p>Loading…</p>}>
          <Outlet />
        </Suspense>
      </main>
    </>
  );
}
