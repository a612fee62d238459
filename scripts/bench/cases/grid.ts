// grid: eight agent sessions × 20 steps (four rounds of navigate, snapshot, type, click, find on a
// local form) through a Selenium Grid 4 on loopback (a hub and two nodes of four slots, each
// session a browser of its own), against the same eight sessions on one managed profile (one
// browser, a tab each), in the same run: steps/s of each and the ratio. On one machine this
// measures what the Grid's path costs (its router and node proxy every CDP message, and eight
// browsers share the cores one would have), not what more machines give.

import { chromiumCapabilities, startSeleniumGrid } from '../../../test/helpers/selenium-grid';
import { startBenchPages, type RelayProcess } from '../fixture';
import { FORM_PAGE, formRound, profileCalls, type ProfileCall } from './many-profiles';
import { round, type CaseResult } from '../stats';

const ROUNDS = 4;

interface Run {
  steps: number;
  seconds: number;
  errors: string[];
}

/** `agents` sessions at once, each doing ROUNDS rounds in its own tab (opened first, not timed). */
async function run(
  api: ProfileCall,
  profile: string,
  agents: number,
  rounds: number,
  url: (path: string) => string,
): Promise<Run> {
  const errors: string[] = [];
  let steps = 0;
  const step = async <T>(_kind: string, what: () => Promise<T>): Promise<T> => {
    const result = await what();
    steps++;
    return result;
  };
  const sessions = Array.from({ length: agents }, (_, k) => `bench-agent-${k}`);
  // Each session's tab (on a grid profile, in its own browser, asked of the Grid here).
  const tabs = await Promise.all(
    sessions.map(
      async (session) =>
        (await api<{ targetId: string }>('POST', '/tabs/open', profile, { url: url('/form'), session })).targetId,
    ),
  );
  const began = performance.now();
  await Promise.all(
    sessions.map(async (session, k) => {
      for (let r = 0; r < rounds; r++) {
        const text = `${session} round ${r}`;
        await formRound(api, profile, { targetId: tabs[k]!, session }, url(`/form?${session}&${r}`), text, step).catch(
          (error: Error) => errors.push(error.message),
        );
      }
    }),
  );
  return { steps, seconds: (performance.now() - began) / 1000, errors };
}

/** A Grid already up: its URL, and the `clawd:pool` of its nodes to use (none: any of its nodes). */
export interface GivenGrid {
  url: string;
  pool?: string | undefined;
}

export async function grid(relay: RelayProcess, quick: boolean, given?: GivenGrid): Promise<CaseResult> {
  const agents = quick ? 2 : 8;
  const rounds = quick ? 1 : ROUNDS;
  const api = profileCalls(relay);
  const pages = await startBenchPages({ '/form': FORM_PAGE });
  // Quick: one node (a JVM less to start), the two agents on it.
  const hub = given
    ? { url: given.url, capabilities: chromiumCapabilities(given.pool), close: async () => {} }
    : await startSeleniumGrid({ nodes: quick ? 1 : 2, slots: quick ? agents : Math.ceil(agents / 2) });
  try {
    await api('POST', '/profiles/create', 'clawd', {
      name: 'bench-grid',
      gridUrl: hub.url,
      capabilities: hub.capabilities,
    });
    const onGrid = await run(api, 'bench-grid', agents, rounds, pages.url);
    await api('POST', '/stop', 'bench-grid');
    const onManaged = await run(api, 'clawd', agents, rounds, pages.url);
    await api('POST', '/stop', 'clawd');
    const gridRate = onGrid.steps / onGrid.seconds;
    const managedRate = onManaged.steps / onManaged.seconds;
    const errors = [...onGrid.errors, ...onManaged.errors];
    return {
      name: 'grid',
      unit: 'steps/s through the Grid',
      value: round(gridRate, 1),
      baseline: round(managedRate, 1),
      ratio: round(gridRate / managedRate, 2),
      target: 'errors 0, ≥ 0.5× one managed profile on the same machine',
      ok: errors.length === 0 && gridRate / managedRate >= 0.5,
      details: {
        agents,
        stepsEach: rounds * 5,
        gridSeconds: round(onGrid.seconds, 1),
        managedSeconds: round(onManaged.seconds, 1),
        errors: errors.length,
        ...(errors.length ? { firstError: JSON.stringify(errors[0]) } : {}),
      },
    };
  } finally {
    await api('POST', '/stop', 'bench-grid').catch(() => undefined);
    await hub.close();
    await pages.close();
  }
}
