import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { SwitchboardClient } from '../../packages/client/src/index';
import { clientFor, loadSession, saveSession, STORAGE_KEY, type Session } from './api';

interface SessionState {
  session: Session | null;
  api: SwitchboardClient | null;
  signIn(session: Session): void;
  signOut(): void;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(() => loadSession());
  // Signing out in another tab of a kept session ends it here too.
  useEffect(() => {
    const onStorage = (e: StorageEvent) => {
      if (e.key === STORAGE_KEY && e.newValue === null && e.storageArea === localStorage) setSession((s) => (s?.remember ? null : s));
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);
  const value = useMemo<SessionState>(
    () => ({
      session,
      api: session ? clientFor(session.token) : null,
      signIn(s) {
        saveSession(s);
        setSession(s);
      },
      signOut() {
        saveSession(null);
        setSession(null);
      },
    }),
    [session],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** The signed-in client; pages under the signed-in layout only. */
export function useApi(): SwitchboardClient {
  const { api } = useSession();
  if (!api) throw new Error('not signed in');
  return api;
}
