// The contract suite's handle on a `launched` profile (launched-kind.ts): a test server handed
// clawd's kinds and this one, a profile of it made over the control API like any other, the
// first call starting its browser; the harness reads the page over a CDP session of its own.

import { BUILT_IN_KINDS } from '../../../relay/profiles/kinds';
import { harness, scoped, type AgentDriver } from '../agent-drivers';
import { CdpClient } from '../cdp-client';
import type { PageServer } from '../pages';
import { startTestServer } from '../server';
import { launchedKind } from './launched-kind';

export async function launchedDriver(pages: PageServer): Promise<AgentDriver> {
  const server = await startTestServer({ kinds: [...BUILT_IN_KINDS, launchedKind] });
  try {
    const created = await server.api('POST', '/profiles/create', {
      person: true,
      body: { name: 'own', driver: 'launched' },
    });
    if (created.status !== 201) throw new Error(`creating the launched profile: ${JSON.stringify(created.body)}`);
    const api = scoped(server, 'own');
    const opened = await api<{ targetId: string }>('POST', '/tabs/open', { url: pages.url('/') });
    if (opened.status !== 200) throw new Error(`opening a tab: ${JSON.stringify(opened.body)}`);
    const status = await api<{ cdpUrl: string }>('GET', '/');
    const version = (await (await fetch(`${status.body.cdpUrl}/json/version`)).json()) as {
      webSocketDebuggerUrl: string;
    };
    const cdp = await CdpClient.connect(version.webSocketDebuggerUrl);
    return {
      name: 'launched',
      profile: 'own',
      server,
      targetId: opened.body.targetId,
      api,
      loosen: (body) => server.loosen(body, 'own'),
      ...(await harness(cdp, opened.body.targetId)),
      async close() {
        await cdp.close();
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}
