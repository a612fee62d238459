// The agent routes of the control API: snapshot, act, navigate, screenshot, console, pdf, the
// arming hooks, and who controls a tab (holds, hand-over). Thin: resolve the profile, parse the query or body into the typed request (a 400
// naming the field), call the agent service, answer its JSON.

import type { Context, Hono } from 'hono';
import { parseAct } from '../agent/act-request';
import { parseConsole, parseContent, parseDownload, parseDialog, parseFileChooser, parseHandoff, parseHandoffWait, parseNavigate, parsePdf, parseScreenshot, parseSnapshot, parseTab } from '../agent/agent-requests';
import type { AgentService } from '../agent/agent-service';
import type { ProfileService } from '../profiles/profile-service';
import { jsonBody } from './request-body';
import { MAX_HANDOFF_WAIT_MS } from '../agent/tab-control';

/** The request's fields with the agent session of the X-Clawd-Session header, unless the fields name one. */
function withSession(c: Context, fields: Record<string, unknown>): Record<string, unknown> {
  const header = c.req.header('x-clawd-session');
  return header !== undefined && fields.session === undefined ? { ...fields, session: header } : fields;
}

/** A signed-in live view link to a tab, valid (once) for `ttlMs`: given with a hand-over. */
export type ViewLinker = (tab: { profile: string; targetId: string }, ttlMs: number) => string;

export function registerAgentRoutes(app: Hono, profiles: ProfileService, agent: AgentService, viewLinkFor: ViewLinker): void {
  const profile = (c: Context) => profiles.resolve(c.req.query('profile'));
  const body = async (c: Context) => withSession(c, await jsonBody(c));
  const query = (c: Context) => withSession(c, c.req.query());
  app.get('/snapshot', async (c) => c.json(await agent.snapshot(profile(c), parseSnapshot(c.req.query()))));
  app.get('/content', async (c) => c.json(await agent.content(profile(c), parseContent(c.req.query()))));
  app.get('/console', async (c) => c.json(await agent.console(profile(c), parseConsole(c.req.query()))));
  app.post('/act', async (c) => c.json(await agent.act(profile(c), parseAct(await body(c)))));
  app.post('/navigate', async (c) => c.json(await agent.navigate(profile(c), parseNavigate(await body(c)))));
  app.post('/screenshot', async (c) => c.json(await agent.screenshot(profile(c), parseScreenshot(await jsonBody(c)))));
  app.post('/pdf', async (c) => c.json(await agent.pdf(profile(c), parsePdf(await jsonBody(c)))));
  app.post('/hooks/file-chooser', async (c) => c.json(await agent.fileChooser(profile(c), parseFileChooser(await body(c)))));
  app.post('/hooks/download', async (c) => c.json(await agent.download(profile(c), parseDownload(await body(c)))));
  app.get('/downloads', async (c) => c.json(await agent.downloads(profile(c), parseTab(c.req.query()))));
  app.post('/hooks/dialog', async (c) => c.json(await agent.dialog(profile(c), parseDialog(await body(c)))));
  // Who controls a tab: agent sessions' holds, and hand-over to the person.
  app.delete('/tabs/:targetId/hold', async (c) => c.json(await agent.releaseHold(profile(c), parseTab({ ...query(c), targetId: c.req.param('targetId') }))));
  // The answer carries a live view link for the person, valid as long as the hand-over (≤ 10 min).
  app.post('/handoff', async (c) => {
    const request = parseHandoff(await body(c));
    const given = await agent.handOff(profile(c), request);
    const viewUrl = viewLinkFor({ profile: profile(c), targetId: given.targetId as string }, request.timeoutMs ?? MAX_HANDOFF_WAIT_MS);
    return c.json({ ...given, viewUrl });
  });
  app.get('/handoff/wait', async (c) => c.json(await agent.waitForHandback(profile(c), parseHandoffWait(query(c)))));
  app.delete('/handoff', async (c) => c.json(await agent.endHandoff(profile(c), parseTab(query(c)), 'agent')));
}
