import { useState, type FormEvent } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { identify } from '../api';
import { useSession } from '../session';
import { ErrorBanner } from '../ui/common';
import { Checkbox, TextField } from '../ui/fields';
import { useSubmit } from '../ui/hooks';

export default function SignIn() {
  const { session, signIn } = useSession();
  const [token, setToken] = useState('');
  const [remember, setRemember] = useState(false);
  const submit = useSubmit();
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: string } | null)?.from;
  // Signed in already (another tab, a kept session): the home page. Signed in just now: where
  // onSubmit sends, which this render must not overtake (`/` is a page of its own, not a redirect).
  const [signingIn, setSigningIn] = useState(false);
  if (session && !signingIn) return <Navigate to="/" replace />;

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const s = await submit.run(() => identify(token.trim()));
    if (!s) return;
    setSigningIn(true);
    signIn({ ...s, remember });
    // Back where the sign-in began, when that page is one of this role's (an admin's page after
    // a user signs in, or the reverse, would only refuse them).
    const own = from && from !== '/' && from.startsWith('/admin') === (s.role === 'admin') ? from : null;
    navigate(own ?? (s.role === 'admin' ? '/admin' : '/assistants'), { replace: true });
  };

  return (
    <main id="main" className="sign-in">
      <h1>Sign in to Switchboard</h1>
      <p>
        Paste an API token (<code>sb_…</code>) to manage your assistants, or the admin token to manage users. The token stays in this
        browser tab only, unless you keep yourself signed in: then this browser's tabs share it until you sign out (do that only on a
        computer that is yours).
      </p>
      <form onSubmit={onSubmit}>
        <TextField label="API token" type="password" value={token} onChange={setToken} required name="token" />
        <Checkbox label="Keep me signed in on this browser" checked={remember} onChange={setRemember} />
        <ErrorBanner error={submit.error} />
        <button type="submit" disabled={submit.busy || token.trim() === ''}>
          {submit.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
