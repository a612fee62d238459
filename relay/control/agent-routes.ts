// The agent routes of the control API: snapshot, act, navigate, screenshot, console, pdf and the
// arming hooks. Thin: resolve the profile, parse the query or body into the typed request (a 400
// naming the field), call the agent service, answer its JSON.

import type { Context, Hono } from 'hono';
import { parseAct } from '../agent/act-request';
import { parseConsole, parseDialog, parseFileChooser, parseNavigate, parsePdf, parseScreenshot, parseSnapshot } from '../agent/agent-requests';
import type { AgentService } from '../agent/agent-service';
import type { ProfileService } from '../profiles/profile-service';
import { jsonBody } from './request-body';

export function registerAgentRoutes(app: Hono, profiles: ProfileService, agent: AgentService): void {
  const profile = (c: Context) => profiles.resolve(c.req.query('profile'));
  app.get('/snapshot', async (c) => c.json(await agent.snapshot(profile(c), parseSnapshot(c.req.query()))));
  app.get('/console', async (c) => c.json(await agent.console(profile(c), parseConsole(c.req.query()))));
  app.post('/act', async (c) => c.json(await agent.act(profile(c), parseAct(await jsonBody(c)))));
  app.post('/navigate', async (c) => c.json(await agent.navigate(profile(c), parseNavigate(await jsonBody(c)))));
  app.post('/screenshot', async (c) => c.json(await agent.screenshot(profile(c), parseScreenshot(await jsonBody(c)))));
  app.post('/pdf', async (c) => c.json(await agent.pdf(profile(c), parsePdf(await jsonBody(c)))));
  app.post('/hooks/file-chooser', async (c) => c.json(await agent.fileChooser(profile(c), parseFileChooser(await jsonBody(c)))));
  app.post('/hooks/dialog', async (c) => c.json(await agent.dialog(profile(c), parseDialog(await jsonBody(c)))));
}
