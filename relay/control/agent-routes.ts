// The agent routes of the control API: snapshot, act, navigate, screenshot, console, pdf and the
// arming hooks. Thin: resolve the profile, call the agent service, answer its JSON.

import type { Hono } from 'hono';
import type { AgentService } from '../agent/agent-service';
import type { ProfileService } from '../profiles/profile-service';
import { jsonBody } from './request-body';

export function registerAgentRoutes(app: Hono, profiles: ProfileService, agent: AgentService): void {
  const profile = (query: string | undefined) => profiles.resolve(query);
  app.get('/snapshot', async (c) => c.json(await agent.snapshot(profile(c.req.query('profile')), c.req.query())));
  app.get('/console', async (c) => c.json(await agent.console(profile(c.req.query('profile')), c.req.query())));
  app.post('/act', async (c) => c.json(await agent.act(profile(c.req.query('profile')), await jsonBody(c))));
  app.post('/navigate', async (c) => c.json(await agent.navigate(profile(c.req.query('profile')), await jsonBody(c))));
  app.post('/screenshot', async (c) => c.json(await agent.screenshot(profile(c.req.query('profile')), await jsonBody(c))));
  app.post('/pdf', async (c) => c.json(await agent.pdf(profile(c.req.query('profile')), await jsonBody(c))));
  app.post('/hooks/file-chooser', async (c) => c.json(await agent.fileChooser(profile(c.req.query('profile')), await jsonBody(c))));
  app.post('/hooks/dialog', async (c) => c.json(await agent.dialog(profile(c.req.query('profile')), await jsonBody(c))));
}
