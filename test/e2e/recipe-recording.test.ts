// The person teaches a task by doing it: in the side panel (its page opened as a tab, read and
// clicked as the person would) they press Record on a tab of theirs, do a two-page order with
// their own hands (the test's own connection to the browser, not the relay), delete a stray step
// and save it. The recipe has a parameter per field and none of the values typed; agents are held
// off the tab while it records (the agent API, ending it, a raw CDP client's input or load); an agent runs the recipe over `clawd mcp` with other values and
// the shop receives those; with the shop's button renamed, the run stops at that step and says so.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SavedRecipe } from '../../shared/recipe';
import { TestBrowser } from '../helpers/chromium';
import { CdpClient } from '../helpers/cdp-client';
import { CLAWD_BIN } from '../helpers/cli';
import { unfenced } from '../helpers/fence';
import { startOrderShop } from '../helpers/order-shop';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/waits';

describe('the person teaches a task in the side panel, and an agent runs it', () => {
  let server: TestServer;
  let browser: TestBrowser;
  let shop: Awaited<ReturnType<typeof startOrderShop>>;
  let tab: { tabTargetId: string; pageTargetId: string };
  let panelSession: string;
  let hands: string;
  const api = <T = any>(method: string, route: string, body?: unknown) =>
    server.api<T>(method, route, { profile: 'chrome', ...(body !== undefined ? { body } : {}) });
  const evaluate = async <T = any>(expression: string, session: string): Promise<T> => {
    const { result, exceptionDetails } = await browser.cdp.send(
      'Runtime.evaluate',
      { expression, returnByValue: true, awaitPromise: true },
      session,
    );
    if (exceptionDetails) throw new Error(`${expression}: ${JSON.stringify(exceptionDetails)}`);
    return result.value as T;
  };
  /** In the side panel's page, as the person sees it. */
  const inPanel = <T = any>(expression: string) => evaluate<T>(expression, panelSession);
  const panelSteps = () =>
    inPanel<string[]>(`[...document.querySelectorAll('#steps li span')].map((s) => s.textContent)`);

  /** The person's own hands on the shop's tab: a real mouse press on the element's middle, a key, text. */
  const person = {
    async click(selector: string) {
      const at = await until(`${selector} on the page`, () =>
        evaluate<{ x: number; y: number } | undefined>(
          `(() => { const r = document.querySelector(${JSON.stringify(selector)})?.getBoundingClientRect();
            return r ? { x: r.x + r.width / 2, y: r.y + r.height / 2 } : undefined; })()`,
          hands,
        ),
      );
      for (const type of ['mousePressed', 'mouseReleased'])
        await browser.cdp.send('Input.dispatchMouseEvent', { type, ...at, button: 'left', clickCount: 1 }, hands);
    },
    async key(key: string, code = key, windowsVirtualKeyCode?: number) {
      for (const type of ['rawKeyDown', 'keyUp'])
        await browser.cdp.send('Input.dispatchKeyEvent', { type, key, code, windowsVirtualKeyCode }, hands);
    },
    async type(text: string) {
      await browser.cdp.send('Input.insertText', { text }, hands);
    },
  };

  beforeAll(async () => {
    [server, browser, shop] = await Promise.all([startTestServer(), TestBrowser.launch(), startOrderShop()]);
    await browser.configureExtension(server.server.relay.port, server.extensionKey);
    await until('the extension to connect', () => server.server.relay.switchboard.extensionConnected, 15_000);
    tab = await browser.openTab(shop.url);
    await browser.clickToolbar(tab);
    await until('the tab attached', () =>
      server.server.relay.switchboard.tabs().some((t) => t.targetId === tab.pageTargetId),
    );
    const panel = await browser.openTab(`chrome-extension://${browser.extensionId}/panel.html`);
    panelSession = await browser.pageSession(panel.pageTargetId);
    hands = await browser.pageSession(tab.pageTargetId);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), server?.close(), shop?.close()]);
  });

  it(
    'records the person’s steps with locators and no values; an agent runs the recipe with its own',
    { timeout: 120_000 },
    async () => {
      // Record, on the shop's tab in the panel's list.
      await until('Record in the panel', () =>
        inPanel<boolean>(`!!document.querySelector('#tabs li[data-target-id="${tab.pageTargetId}"] .record')`),
      );
      await inPanel(`document.querySelector('#tabs li[data-target-id="${tab.pageTargetId}"] .record').click()`);
      await until('the recording shown', () => inPanel<boolean>(`!document.getElementById('recording').hidden`));
      // While the person records, the tab is theirs: an agent's changing call is refused.
      await until('the tab to be the person’s', async () => {
        const tabs = (await api<{ tabs: Array<{ targetId: string; holder?: { kind: string } }> }>('GET', '/tabs')).body
          .tabs;
        return tabs.find((t) => t.targetId === tab.pageTargetId)?.holder?.kind === 'person';
      });
      const refused = await api('POST', '/navigate', { targetId: tab.pageTargetId, url: shop.url });
      expect(refused.status).toBe(423);
      expect(refused.body.error.code).toBe('user_in_control');
      // Nor can an agent end it (it is the person's own), or act through the relay as a raw CDP client.
      const ended = await api('DELETE', `/handoff?targetId=${tab.pageTargetId}`);
      expect(ended.status).toBe(423);
      expect(ended.body.error.message).toMatch(/the person took this tab themselves \("You are recording a recipe/);
      const version = await (
        await fetch(`${server.server.relay.url}/json/version`, { headers: { Authorization: `Bearer ${server.token}` } })
      ).json();
      const raw = await CdpClient.connect(`${version.webSocketDebuggerUrl}&session=sneaky`);
      try {
        const { sessionId } = await raw.send('Target.attachToTarget', { targetId: tab.pageTargetId, flatten: true });
        await expect(
          raw.send(
            'Input.dispatchMouseEvent',
            { type: 'mousePressed', x: 5, y: 5, button: 'left', clickCount: 1 },
            sessionId,
          ),
        ).rejects.toThrow(/the person has this tab/);
        await expect(raw.send('Page.navigate', { url: shop.url }, sessionId)).rejects.toThrow(
          /the person has this tab/,
        );
      } finally {
        await raw.close();
      }

      // The task, by the person's own hands (a stray click on the heading among it).
      await browser.cdp.send('Target.activateTarget', { targetId: tab.pageTargetId });
      await person.click('input[name=name]');
      await person.type('Ada Lovelace');
      await person.click('h1');
      await person.click('select[name=plan]');
      await person.key('Escape'); // the list the click opened
      await person.key('ArrowDown', 'ArrowDown', 40);
      await until('the plan chosen', () =>
        evaluate<boolean>(`document.querySelector('select').value === 'pro'`, hands),
      );
      // The page's own click (a script's, not trusted input) is nobody's hands: no step.
      await evaluate(`document.querySelector('h1').click()`, hands);
      await person.click('button');
      // On the second page the person clicks as soon as the box is there: the recorder is in the
      // page before its first script, not once the extension hears the page loaded.
      await person.click('input[name=news]');
      await person.click('input[name=code]');
      await person.type('k9-Lighthouse-42');
      await person.click('button');
      await until('the order placed', () => shop.order() !== undefined);
      expect(shop.order()).toEqual({ name: 'Ada Lovelace', plan: 'pro', news: 'on', code: 'k9-Lighthouse-42' });

      const expected = [
        `go to ${shop.url}`,
        'fill textbox "Full name"',
        'click css "html > body > main > h1"',
        'choose in combobox "Plan"',
        'click button "Next"',
        'check checkbox "Send me news"',
        'fill textbox "Access code" (a password: asked of each run)',
        'click button "Place order"',
      ];
      await until('the steps in the panel', async () => (await panelSteps()).length >= expected.length);
      expect(await panelSteps()).toEqual(expected);
      // No typed value is in the panel's words: each field is a parameter.
      expect(await inPanel<string>(`document.getElementById('steps').textContent`)).not.toContain('Ada');

      // The stray click goes; named, saved.
      await inPanel(`document.querySelectorAll('#steps li')[2].querySelector('.delete').click()`);
      expect(await panelSteps()).toEqual(expected.filter((s) => !s.startsWith('click css')));
      // A name already saved is refused, said in the panel; the recording goes on, to be named again.
      mkdirSync(path.join(server.home, 'recipes'), { recursive: true });
      writeFileSync(
        path.join(server.home, 'recipes', 'taken.json'),
        JSON.stringify({
          name: 'taken',
          created: '2026-01-01T00:00:00Z',
          source: 'x',
          params: [],
          secrets: [],
          steps: [{ do: 'goto', url: shop.url }],
        }),
      );
      await inPanel(`document.getElementById('recipe-name').value = 'taken'`);
      await inPanel(`document.getElementById('save-recipe').click()`);
      await until('refused', async () =>
        (await inPanel<string>(`document.getElementById('recipe-said').textContent`)).startsWith(
          'Not saved: a recipe named taken',
        ),
      );
      expect(await inPanel<boolean>(`!document.getElementById('recording').hidden`)).toBe(true);
      await inPanel(`document.getElementById('recipe-name').value = 'taught-order'`);
      await inPanel(`document.getElementById('save-recipe').click()`);
      await until('saved', async () =>
        (await inPanel<string>(`document.getElementById('recipe-said').textContent`)).startsWith(
          'Saved as taught-order',
        ),
      );
      const saved = JSON.parse(
        readFileSync(path.join(server.home, 'recipes', 'taught-order.json'), 'utf8'),
      ) as SavedRecipe;
      expect(saved.params).toEqual([
        { name: 'fullName', about: 'Full name' },
        { name: 'plan', about: 'Plan' },
        { name: 'accessCode', about: 'Access code' },
      ]);
      const file = JSON.stringify(saved);
      for (const typed of ['Ada', 'k9-Lighthouse-42', '"pro"']) expect(file).not.toContain(typed);
      expect(saved.source).toMatch(/^recorded by the person on chrome, \d{4}-\d\d-\d\d$/);
      // The tab is the agents' again.
      await until('the tab given back', async () => {
        const tabs = (await api<{ tabs: Array<{ targetId: string; holder?: unknown }> }>('GET', '/tabs')).body.tabs;
        return tabs.find((t) => t.targetId === tab.pageTargetId)?.holder === undefined;
      });

      // An agent runs it over MCP with values of its own: the shop receives those.
      const client = new Client({ name: 'clawd-test', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLAWD_BIN, 'mcp', '--home', server.home, '--profile', 'chrome'],
          env: { ...process.env } as Record<string, string>,
          stderr: 'ignore',
        }),
      );
      try {
        const run = async (params: string[]) => {
          const result = (await client.callTool({
            name: 'recipe',
            arguments: { action: 'run', name: 'taught-order', targetId: tab.pageTargetId, params },
          })) as { content: Array<{ text?: string }> };
          return unfenced(result.content.map((c) => c.text ?? '').join('\n'));
        };
        const listed = unfenced(
          ((await client.callTool({ name: 'recipe', arguments: {} })) as { content: Array<{ text?: string }> }).content
            .map((c) => c.text ?? '')
            .join('\n'),
        );
        expect(listed).toMatch(
          /^taught-order: 7 steps; params fullName \(no default\), plan \(no default\), accessCode \(no default\)$/m,
        );
        shop.reset();
        const ran = await run(['fullName=Grace Hopper', 'plan=basic', 'accessCode=open-sesame']);
        expect(ran).toMatch(/^ran recipe taught-order: 7 steps/);
        expect(shop.order()).toEqual({ name: 'Grace Hopper', plan: 'basic', news: 'on', code: 'open-sesame' });

        // The shop renamed its button: the run stops at that step, and says what it expected.
        shop.reset();
        shop.rename('Next', 'Continue');
        const stopped = await run(['fullName=Grace Hopper', 'plan=basic', 'accessCode=open-sesame']);
        expect(stopped).toMatch(
          /^step 4: click button "Next" — the step's element is not on the page: button "Next"$/m,
        );
        expect(stopped).toMatch(/button "Continue" \[e\d+\]/);
        expect(shop.order()).toBeUndefined();
      } finally {
        await client.close();
      }
    },
  );
});
