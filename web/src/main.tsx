import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider, type RouteObject } from 'react-router';
import { Layout } from './Layout';
import { SessionProvider } from './session';
import SignIn from './pages/SignIn';
import { prefetchCallList } from './prefetch';
import './styles.css';

/** Pages load on first visit (code splitting): the first page carries only the shell and sign-in. */
const page = (load: () => Promise<{ default: React.ComponentType }>): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load()).default }),
});

const router = createBrowserRouter([
  { path: '/sign-in', Component: SignIn },
  {
    path: '/',
    Component: Layout,
    children: [
      { index: true, ...page(() => import('./pages/Home')) },
      { path: 'assistants', ...page(() => import('./pages/Assistants')) },
      { path: 'assistants/new', ...page(() => import('./pages/AssistantEdit')) },
      { path: 'assistants/:id', ...page(() => import('./pages/AssistantEdit')) },
      { path: 'assistants/:id/tests', ...page(() => import('./pages/AssistantTests')) },
      { path: 'tools', ...page(() => import('./pages/Tools')) },
      { path: 'tools/new', ...page(() => import('./pages/ToolEdit')) },
      { path: 'tools/:id', ...page(() => import('./pages/ToolEdit')) },
      { path: 'knowledge', ...page(() => import('./pages/KnowledgeBases')) },
      { path: 'knowledge/:id', ...page(() => import('./pages/KnowledgeBase')) },
      { path: 'campaigns', ...page(() => import('./pages/Campaigns')) },
      { path: 'campaigns/new', ...page(() => import('./pages/CampaignEdit')) },
      { path: 'campaigns/:id', ...page(() => import('./pages/CampaignDetail')) },
      { path: 'campaigns/:id/edit', ...page(() => import('./pages/CampaignEdit')) },
      { path: 'leads', ...page(() => import('./pages/Leads')) },
      { path: 'leads/import', ...page(() => import('./pages/LeadImport')) },
      { path: 'calls', loader: prefetchCallList, ...page(() => import('./pages/Calls')) },
      { path: 'calls/:id', ...page(() => import('./pages/CallDetail')) },
      { path: 'account', ...page(() => import('./pages/Account')) },
      { path: 'settings/keys', ...page(() => import('./pages/ProviderKeys')) },
      { path: 'admin', ...page(() => import('./pages/Admin')) },
      { path: 'admin/users/:id', ...page(() => import('./pages/AdminUser')) },
      { path: '*', ...page(() => import('./pages/NotFound')) },
    ],
  },
]);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <SessionProvider>
      <RouterProvider router={router} />
    </SessionProvider>
  </StrictMode>,
);
