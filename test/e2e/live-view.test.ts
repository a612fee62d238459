// The live view as a person uses it: a second Chromium (driven by Playwright, playing the
// person) opens the link `clawd view` prints and watches the tab an agent drives — managed
// (headless), extension-attached and a Grid's browser (over se:cdp). Every check reads the tab back through the harness's own
// CDP session: the picture shows the page, a click on the picture presses the button, typing
// fills the input (non-ASCII too), the wheel scrolls; hand-over and take-over follow one model.

import { chromium, type Browser, type Page } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeFrame } from '../../shared/view-protocol';
import { driversToRun, extensionDriver, gridDriver, managedDriver, useAgentDriver } from '../helpers/agent-drivers';
import { CHROMIUM_FLAGS, chromiumPath } from '../helpers/chromium';
import { quiet, until } from '../helpers/waits';

type Rgb = [number, number, number];

function usePerson(): { readonly browser: Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      args: CHROMIUM_FLAGS.filter((f) => !f.startsWith('--headless')),
    });
  });
  afterAll(async () => browser?.close());
  return {
    get browser() {
      if (!browser) throw new Error('the person browser is made in beforeAll');
      return browser;
    },
  };
}

// The person's browser, one for the file: each view opens in a context of its own (newPage).
const person = usePerson();

const drivers = driversToRun([
  ['managed', managedDriver],
  ['extension', extensionDriver],
  ['grid', gridDriver],
] as const);

describe.each(drivers)('the live view of a %s tab', (_kind, makeDriver) => {
  const ctx = useAgentDriver(makeDriver);
  let view: Page;
  let viewport: { width: number; height: number };

  const field = () => ctx.d.inPage<string>('document.getElementById("field").value');
  const out = () => ctx.d.inPage<string>('document.getElementById("out").textContent');
  const act = (body: Record<string, unknown>) => ctx.d.api('POST', '/act', { targetId: ctx.d.targetId, ...body });
  const pressRef = async () => {
    const snap = (await ctx.d.api('GET', `/snapshot?targetId=${ctx.d.targetId}`)).body as {
      refs: Record<string, { name: string }>;
    };
    return Object.entries(snap.refs).find(([, r]) => r.name === 'Press')![0];
  };
  /** Where a point of the tab's page is on the person's screen. */
  const onScreen = async (x: number, y: number) => {
    const box = (await view.locator('#screen').boundingBox())!;
    return { x: box.x + (x * box.width) / viewport.width, y: box.y + (y * box.height) / viewport.height };
  };
  const pixel = (x: number, y: number) =>
    view.evaluate(
      ([px, py, width]) => {
        const canvas = document.getElementById('screen') as HTMLCanvasElement;
        const scale = canvas.width / width!;
        const d = canvas.getContext('2d')!.getImageData(Math.round(px! * scale), Math.round(py! * scale), 1, 1).data;
        return [d[0], d[1], d[2]] as Rgb;
      },
      [x, y, viewport.width],
    );
  const near = (a: Rgb, b: Rgb) => a.every((v, i) => Math.abs(v - b[i]!) < 40);
  const holder = async () =>
    ((await ctx.d.api('GET', '/tabs')).body.tabs as Array<{ targetId: string; holder?: { kind: string } }>).find(
      (t) => t.targetId === ctx.d.targetId,
    )?.holder;

  beforeAll(async () => {
    await ctx.d.api('POST', '/navigate', { url: ctx.pages.url('/live'), targetId: ctx.d.targetId });
    viewport = await ctx.d.inPage('({ width: innerWidth, height: innerHeight })');
    const printed = await ctx.d.server.cli(['view', '--profile', ctx.d.profile, '--target', ctx.d.targetId]);
    expect(printed.code, printed.stderr).toBe(0);
    const link = printed.stdout.trim();
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/view#code=[\w-]+&profile=\w+&target=\w+$/);
    view = await person.browser.newPage({ viewport: { width: 900, height: 800 } });
    await view.goto(link);
  });
  afterAll(async () => view?.close());

  it('shows the tab, and the picture follows what the agent changes', async () => {
    await until('the first picture', async () => near(await pixel(100, 100), [0, 200, 0]), 10_000);
    expect(view.url()).not.toContain('code='); // the one-time code leaves the address bar
    const snap = (await ctx.d.api('GET', `/snapshot?targetId=${ctx.d.targetId}`)).body as {
      refs: Record<string, { name: string }>;
    };
    const paint = Object.entries(snap.refs).find(([, r]) => r.name === 'Paint')![0];
    expect((await act({ kind: 'click', ref: paint })).status).toBe(200);
    // Bounded wider than the first picture: a clean-clone CI run, the bench and the asks file beside
    // it on two cores, took over 5 s once and 11.8 s once (alone it takes under 2 s).
    await until(
      'the new picture',
      async () => {
        const seen = await pixel(100, 100);
        if (near(seen, [0, 0, 220])) return true;
        // What a failure says: the picture, how many frames the viewer drew, and the page itself.
        const frames = await view.locator('#screen').getAttribute('data-frames');
        const page = await ctx.d.inPage<string>(
          '`${getComputedStyle(document.getElementById("block")).backgroundColor}, ${document.visibilityState}`',
        );
        // Held for a viewer: the server has a newer frame the viewer has not taken (its acks); none
        // held: the browser sent no new frame.
        const viewers = JSON.stringify(ctx.d.server.server.control.views.viewerStats());
        throw new Error(
          `the picture shows ${seen.join(',')} after ${frames} frames; the page: ${page}; viewers: ${viewers}`,
        );
      },
      20_000,
      200,
    );
    expect(await view.locator('#address').inputValue()).toBe(ctx.pages.url('/live'));
    // What the agent did is listed beside the picture as it happens (the action log).
    await until(
      'the click listed',
      async () =>
        (await view.getByRole('region', { name: 'What agents did in this tab' }).textContent())?.includes(
          `click ${paint} button "Paint"`,
        ),
      5_000,
    );
    // Where the eye goes: above the fold, not under the picture.
    const list = await view.getByRole('region', { name: 'What agents did in this tab' }).boundingBox();
    expect(list!.y + 40).toBeLessThan(800);
  });

  it('clicks, types (non-ASCII too) and scrolls in the tab; acting takes the tab, Done gives it back', async () => {
    const press = await onScreen(400, 70);
    await view.mouse.click(press.x, press.y);
    await until('the button pressed', async () => (await out()) === 'pressed 1');
    expect(await holder()).toMatchObject({ kind: 'person' });
    const refused = await act({ kind: 'click', ref: await pressRef() });
    expect(refused.status).toBe(423);
    expect(refused.body.error.code).toBe('user_in_control');

    const input = await onScreen(450, 160);
    await view.mouse.click(input.x, input.y);
    await view.keyboard.type('héllo 日本');
    await view.keyboard.press('Backspace');
    await until('the text typed', async () => (await field()) === 'héllo 日');

    const middle = await onScreen(viewport.width / 2, viewport.height / 2);
    await view.mouse.move(middle.x, middle.y);
    await view.mouse.wheel(0, 600);
    await until('the page scrolled', async () => (await ctx.d.inPage<number>('scrollY')) > 100);

    await view.getByRole('button', { name: 'Done — give it back' }).click();
    await until('the tab given back', async () => (await holder()) === undefined);
    expect((await act({ kind: 'click', ref: await pressRef() })).status).toBe(200);
    expect(await out()).toBe('pressed 2');
  });

  it('hands over with a reason; the person acts and gives it back; `clawd handoff --wait` exits 0', async () => {
    await ctx.d.inPage('scrollTo(0, 0); document.getElementById("field").value = ""');
    const waiting = ctx.d.server.cli(
      ['handoff', 'Log in, then press Done', '--wait', '--profile', ctx.d.profile, '--target', ctx.d.targetId],
      60_000,
    );
    await until(
      'the reason shown',
      async () => (await view.locator('#reason').textContent()) === 'Log in, then press Done',
      10_000,
    );
    const refused = await act({ kind: 'click', ref: await pressRef() });
    expect(refused.status).toBe(423);
    expect(refused.body.error).toMatchObject({
      code: 'user_in_control',
      message: expect.stringContaining('Log in, then press Done'),
    });
    expect(await out()).toBe('pressed 2');

    const input = await onScreen(450, 160);
    await view.mouse.click(input.x, input.y);
    await view.keyboard.type('secret');
    await until('the person typed', async () => (await field()) === 'secret');
    await view.getByRole('button', { name: 'Done — give it back' }).click();
    const result = await waiting;
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toContain('the tab is back (person)');
    expect((await act({ kind: 'click', ref: await pressRef() })).status).toBe(200);
  });

  it('is watch-only while an agent session holds the tab, until the person takes over', async () => {
    expect((await act({ kind: 'click', ref: await pressRef(), session: 'alpha' })).status).toBe(200);
    const before = await out();
    const press = await onScreen(400, 70);
    await view.mouse.click(press.x, press.y);
    await until(
      'watch-only shown',
      async () => (await view.locator('#notice').textContent())?.includes('watch-only'),
      5_000,
    );
    expect(await out()).toBe(before);

    await view.getByRole('button', { name: 'Take over' }).click();
    await until('the person holds the tab', async () => (await holder())?.kind === 'person');
    expect((await act({ kind: 'click', ref: await pressRef(), session: 'alpha' })).body.error.code).toBe(
      'user_in_control',
    );
    const moved = await onScreen(400, 70); // the control bar now says more: the picture may have moved
    await view.mouse.click(moved.x, moved.y);
    await until('the person pressed', async () => (await out()) !== before);
    await view.getByRole('button', { name: 'Done — give it back' }).click();
    await until('the tab given back', async () => (await holder()) === undefined);
  });

  it('navigates from the address bar, back and forward; refuses what POST /navigate refuses', async () => {
    const path = () => ctx.d.inPage<string>('location.pathname');
    await view.locator('#address').fill(ctx.pages.url('/form'));
    await view.locator('#address').press('Enter');
    await until('the tab on /form', async () => (await path()) === '/form');
    await until(
      'the address bar to follow',
      async () => (await view.locator('#address').inputValue()) === ctx.pages.url('/form'),
    );
    await view.getByRole('button', { name: 'Back', exact: true }).click();
    await until('the tab back on /live', async () => (await path()) === '/live');
    await view.getByRole('button', { name: 'Forward', exact: true }).click();
    await until('the tab forward on /form', async () => (await path()) === '/form');
    await view.locator('#address').fill('file:///etc/passwd');
    await view.locator('#address').press('Enter');
    await until(
      'the refusal shown',
      async () => /http/.test((await view.locator('#notice').textContent()) ?? ''),
      5_000,
    );
    expect(await path()).toBe('/form');
    await view.getByRole('button', { name: 'Done — give it back' }).click();
    await until('the tab given back', async () => (await holder()) === undefined);
  });

  it('shows a question an agent asks above the picture; Deny refuses the call, Allow lets it go', async () => {
    // Adding an ask is the agent's token's too; taking it away again is the person's (loosen).
    const before = (await ctx.d.api<{ ask: string[] }>('GET', '/policy')).body.ask;
    expect((await ctx.d.api('POST', '/policy', { ask: [...before, 'new-site'] })).status).toBe(200);
    const elsewhere = ctx.pages.url('/form').replace('127.0.0.1', 'localhost');
    const questions = view.getByRole('region', { name: 'Questions for you' });
    try {
      const denied = ctx.d.api('POST', '/navigate', { targetId: ctx.d.targetId, url: elsewhere, timeoutMs: 20_000 });
      await until(
        'the question shown',
        async () => ((await questions.textContent()) ?? '').includes(`navigate ${elsewhere}`),
        10_000,
      );
      expect(await questions.textContent()).toContain('going to a site it has not been on before');
      await questions.getByRole('button', { name: 'Deny' }).click();
      expect((await denied).body.error.code).toBe('person_declined');
      expect(await ctx.d.inPage<string>('location.hostname')).toBe('127.0.0.1');
      await until('the question gone', async () => await questions.isHidden(), 5_000);

      const allowed = ctx.d.api('POST', '/navigate', { targetId: ctx.d.targetId, url: elsewhere, timeoutMs: 20_000 });
      await until(
        'the question shown again',
        async () => await questions.getByRole('button', { name: 'Allow' }).isVisible(),
        10_000,
      );
      await questions.getByRole('button', { name: 'Allow' }).click();
      expect((await allowed).status).toBe(200);
      expect(await ctx.d.inPage<string>('location.hostname')).toBe('localhost');
    } finally {
      await ctx.d.loosen({ ask: before });
      await ctx.d.api('POST', '/navigate', { url: ctx.pages.url('/live'), targetId: ctx.d.targetId });
    }
  });
});

describe('live view viewers', () => {
  const ctx = useAgentDriver(managedDriver);

  it('fits a phone-sized screen and works from the keyboard alone', async () => {
    await ctx.d.api('POST', '/navigate', { url: ctx.pages.url('/live'), targetId: ctx.d.targetId });
    const link = (await ctx.d.server.cli(['view', '--profile', 'clawd', '--target', ctx.d.targetId])).stdout.trim();
    const phone = await person.browser.newPage({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      hasTouch: true,
      isMobile: true,
    });
    try {
      await phone.goto(link);
      await until(
        'the first picture',
        async () => Number(await phone.locator('#screen').getAttribute('data-frames')) > 0,
        10_000,
      );
      expect(await phone.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
      const canvas = (await phone.locator('#screen').boundingBox())!;
      expect(canvas.width).toBeLessThanOrEqual(390);
      expect(canvas.height).toBeGreaterThan(100);

      // Tab reaches every control, in order, then the picture.
      const reached: string[] = [];
      for (let i = 0; i < 9; i++) {
        await phone.keyboard.press('Tab');
        reached.push(await phone.evaluate(() => document.activeElement?.id ?? ''));
      }
      expect(reached).toEqual(['tab', 'take', 'back', 'forward', 'reload', 'address', 'go', 'keys', 'keys']);
      // In the picture keys go to the tab: that Tab did not move focus, it took the free tab for
      // the person; Shift+Escape leaves the picture for the "Done" button.
      const holder = async () =>
        ((await ctx.d.api('GET', '/tabs')).body.tabs as Array<{ targetId: string; holder?: { kind: string } }>).find(
          (t) => t.targetId === ctx.d.targetId,
        )?.holder;
      await until('the person holds the tab', async () => (await holder())?.kind === 'person');
      await phone.locator('#done').waitFor({ state: 'visible', timeout: 10_000 });
      await phone.keyboard.press('Shift+Escape');
      expect(await phone.evaluate(() => document.activeElement?.id)).toBe('done');
      await phone.keyboard.press('Enter');
      await until('the tab given back', async () => (await holder()) === undefined);
      // The page learns who holds the tab a moment after the relay does; a person presses the
      // button they see, so wait for it (focus() on a hidden button does nothing).
      await phone.locator('#take').waitFor({ state: 'visible', timeout: 10_000 });
      await phone.locator('#take').focus();
      await phone.keyboard.press('Enter');
      await until('taken over by keyboard', async () => (await holder())?.kind === 'person');
      await phone.locator('#done').waitFor({ state: 'visible', timeout: 10_000 });
      await phone.locator('#done').focus();
      await phone.keyboard.press('Enter');
      await until('the tab given back', async () => (await holder()) === undefined);
    } finally {
      await phone.close();
    }
  });

  it("shows a remote profile's tab too, and the page lists tabs as they open (from /events)", async () => {
    // The managed profile's own browser, reached as a remote one by its CDP socket (with the token:
    // its port is clawd's).
    const status = (await ctx.d.api('GET', '/')).body as { cdpUrl: string };
    const version = await (await fetch(`${status.cdpUrl}/json/version?token=${ctx.d.server.token}`)).json();
    expect(
      (
        await ctx.d.server.api('POST', '/profiles/create', {
          person: true,
          body: { name: 'far', cdpUrl: version.webSocketDebuggerUrl },
        })
      ).status,
    ).toBe(201);
    const link = (await ctx.d.server.cli(['view', '--profile', 'far', '--target', ctx.d.targetId])).stdout.trim();
    const page = await person.browser.newPage();
    try {
      await page.goto(link);
      await until(
        'the remote tab picked',
        async () => (await page.locator('#tab').inputValue()) === `far|${ctx.d.targetId}`,
      );
      await until(
        'the first picture of the remote tab',
        async () => Number(await page.locator('#screen').getAttribute('data-frames')) > 0,
        10_000,
      );
      const opened = (await ctx.d.api('POST', '/tabs/open', { url: ctx.pages.url('/form') })).body.targetId as string;
      await until('the new tab listed', async () =>
        (
          await page.locator('#tab option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))
        ).includes(`clawd|${opened}`),
      );
      await ctx.d.api('DELETE', `/tabs/${opened}`);
    } finally {
      await page.close();
      await ctx.d.server.api('DELETE', '/profiles/far', { person: true });
    }
  });

  it('a viewer that stops reading holds at most one frame, and another keeps getting frames', async () => {
    expect(
      (await ctx.d.api('POST', '/navigate', { url: ctx.pages.url('/live?animate=1'), targetId: ctx.d.targetId }))
        .status,
    ).toBe(200);
    const url = `${ctx.d.server.controlUrl.replace('http', 'ws')}/view/ws?profile=clawd&targetId=${ctx.d.targetId}`;
    const open = (onFrame: (ws: WebSocket, data: Buffer) => void) =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${ctx.d.server.token}` } });
        ws.on('message', (data, binary) => binary && onFrame(ws, data as Buffer));
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    let slowFrames = 0;
    const slow = await open(() => slowFrames++); // never acks
    let fastFrames = 0;
    const fast = await open((ws, data) => {
      expect(decodeFrame(data).metadata.deviceWidth).toBeGreaterThan(0);
      fastFrames++;
      ws.send(JSON.stringify({ t: 'ack' }));
    });
    try {
      // Ten frames: on two cores beside a whole run, an animated headless page once painted
      // under 1.5 frames a second (alone it gives 30 in a second or two).
      await until('the acking viewer to get 10 frames', () => fastFrames >= 10, 20_000);
      const stats = ctx.d.server.server.control.views.viewerStats();
      expect(stats).toHaveLength(2);
      expect(slowFrames).toBeLessThanOrEqual(2);
      for (const s of stats) {
        expect(s.held).toBeLessThanOrEqual(1);
        expect(s.buffered).toBeLessThan(1024 * 1024);
      }
    } finally {
      slow.close();
      fast.close();
    }
    await until(
      'the screencast to stop with its last viewer',
      () => ctx.d.server.server.control.views.viewerStats().length === 0,
    );
  });
});

describe('a take-over nobody watches', () => {
  const ctx = useAgentDriver((pages) => managedDriver(pages, { takeoverGraceMs: 300 }));
  const holder = async () =>
    (
      (await ctx.d.api('GET', '/tabs')).body.tabs as Array<{
        targetId: string;
        holder?: { kind: string; takenOver?: boolean };
      }>
    ).find((t) => t.targetId === ctx.d.targetId)?.holder;
  /** The person's own view (what `clawd view` opens): its session cookie, got as the page gets it. */
  const personsCookie = async () => {
    const { code } = (await ctx.d.server.api('POST', '/view/codes', { person: true })).body as { code: string };
    const login = await fetch(`${ctx.d.server.controlUrl}/view/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    return login.headers.get('set-cookie')!.split(';')[0]!;
  };
  const watch = async (as: 'person' | 'token' = 'person') => {
    const headers =
      as === 'person' ? { cookie: await personsCookie() } : { Authorization: `Bearer ${ctx.d.server.token}` };
    return new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(
        `${ctx.d.server.controlUrl.replace('http', 'ws')}/view/ws?profile=clawd&targetId=${ctx.d.targetId}`,
        { headers },
      );
      ws.once('open', () => resolve(ws)).once('error', reject);
    });
  };

  it("watches only with the agent's token, or with a hand-over's link: nothing it sends takes or acts", async () => {
    /** A view socket, every message it is sent kept from the first. */
    const open = (headers: Record<string, string>) =>
      new Promise<{ ws: WebSocket; updates: Array<{ t: string; code?: string }> }>((resolve, reject) => {
        const updates: Array<{ t: string; code?: string }> = [];
        const ws = new WebSocket(
          `${ctx.d.server.controlUrl.replace('http', 'ws')}/view/ws?profile=clawd&targetId=${ctx.d.targetId}`,
          { headers },
        );
        ws.on('message', (data, binary) => void (binary || updates.push(JSON.parse(data.toString()))));
        ws.once('open', () => resolve({ ws, updates })).once('error', reject);
      });
    const viaToken = await open({ Authorization: `Bearer ${ctx.d.server.token}` });
    // The link the hand-over gives the agent, redeemed as the agent would.
    const handed = await ctx.d.api('POST', '/handoff', { targetId: ctx.d.targetId, reason: 'log in' });
    const code = new URLSearchParams(new URL(handed.body.viewUrl).hash.slice(1)).get('code')!;
    const login = await fetch(`${ctx.d.server.controlUrl}/view/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const viaLink = await open({ cookie });
    try {
      for (const { ws, updates } of [viaToken, viaLink]) {
        await until('the grant said', () => updates.some((u) => u.t === 'grant'));
        expect(updates.find((u) => u.t === 'grant')).toEqual({ t: 'grant', acts: false, answers: false });
        for (const message of [
          { t: 'take' },
          { t: 'done' },
          { t: 'nav', action: 'reload' },
          { t: 'key', type: 'keyDown', key: 'a', code: 'KeyA' },
          { t: 'mouse', type: 'mousePressed', x: 5, y: 5, button: 'left', buttons: 1, clickCount: 1 },
        ])
          ws.send(JSON.stringify(message));
        await until('five refusals', () => updates.filter((u) => u.code === 'person_only').length === 5);
      }
      // The hand-over the agent asked for is as it was: nobody took it, nobody gave it back.
      expect(await holder()).toMatchObject({ kind: 'person', reason: 'log in' });
      // And the link shows that one tab only.
      const tabs = await fetch(`${ctx.d.server.controlUrl}/view/api/tabs`, { headers: { cookie } });
      const listed = ((await tabs.json()) as { profiles: Array<{ tabs: Array<{ targetId: string }> }> }).profiles;
      expect(listed.flatMap((p) => p.tabs.map((t) => t.targetId))).toEqual([ctx.d.targetId]);
    } finally {
      viaToken.ws.close();
      viaLink.ws.close();
      await ctx.d.api('DELETE', `/handoff?targetId=${ctx.d.targetId}`);
    }
  });

  it('answers a malformed message with a reason and keeps the view going', async () => {
    const viewer = await watch();
    const updates: Array<{ t: string; code?: string; message?: string }> = [];
    let frames = 0;
    viewer.on('message', (data, binary) => {
      if (!binary) return void updates.push(JSON.parse(data.toString()));
      frames++;
      viewer.send('{"t":"ack"}');
    });
    try {
      viewer.send('nope');
      viewer.send(JSON.stringify({ t: 'mouse', type: 'mousePressed', x: 'left', y: 1 }));
      viewer.send(Buffer.from([1, 2, 3]));
      await until('three refusals', () => updates.filter((u) => u.t === 'error').length === 3);
      expect(updates.filter((u) => u.t === 'error').map((u) => u.message)).toEqual([
        'not JSON',
        'x must be a number from -100000 to 100000',
        'the view sends JSON text messages only',
      ]);
      expect(await holder()).toBeUndefined(); // nothing reached the tab
      await until('the first frame', () => frames > 0);
      const seen = frames;
      await ctx.d.inPage('document.body.style.background = "rgb(1, 2, 3)"');
      await until('frames still coming', () => frames > seen);
    } finally {
      viewer.close();
    }
  });

  it('goes back to the agents soon after its last view closes; a hand-over an agent asked for stays', async () => {
    const viewer = await watch();
    viewer.send(JSON.stringify({ t: 'take' }));
    await until('the person took over', async () => (await holder())?.takenOver === true);
    viewer.close();
    await until('the take-over given back', async () => (await holder()) === undefined, 5_000);

    await ctx.d.api('POST', '/handoff', { targetId: ctx.d.targetId, reason: 'Log in' });
    const again = await watch();
    again.close();
    await quiet(1_000); // over three times the grace: an asked-for hand-over outlives it
    expect(await holder()).toMatchObject({ kind: 'person', reason: 'Log in' });
    await ctx.d.api('DELETE', `/handoff?targetId=${ctx.d.targetId}`);
  });
});
