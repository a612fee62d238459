// Answers that say how an action ended, so an agent need not look again: an "Added to your cart"
// after a POST and redirect (with a view and without one), a form the browser's own validation
// refuses (the field and why), a view swapped for another (a count, not its first words), an
// alert that appears on the same document after a click, and a navigate that lands where it was
// sent while the page was committing a load of its own.
// On a managed profile and on a person's attached tab, through the control API and the CLI.

import { describe, expect, it } from 'vitest';
import { extensionDriver, managedDriver, useAgentDriver } from '../helpers/agent-drivers';
import { unfenced } from '../helpers/fence';
import { until } from '../helpers/waits';

interface Answer {
  navigated?: true;
  url: string;
  title?: string;
  messages?: string[];
  changed?: string[];
  changedMore?: number;
  changedView?: true;
  snapshot?: { snapshot: string; brief?: true; diff?: unknown };
}

describe.each([
  ['managed', managedDriver],
  ['extension', extensionDriver],
] as const)('answers say how an action ended on a %s profile', (_kind, makeDriver) => {
  const ctx = useAgentDriver(makeDriver);
  const api = <T = any>(method: string, route: string, body?: unknown) => ctx.d.api<T>(method, route, body);
  const navigate = async (route: string) => {
    const res = await api('POST', '/navigate', {
      url: ctx.pages.url(route),
      targetId: ctx.d.targetId,
      snapshot: 'full',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { snapshot: { snapshot: string; refs: Record<string, { role: string; name: string }> } };
  };
  const refOf = (loaded: Awaited<ReturnType<typeof navigate>>, role: string, name: string) => {
    const found = Object.entries(loaded.snapshot.refs).find(([, r]) => r.role === role && r.name === name);
    expect(found, `${role} "${name}" in ${loaded.snapshot.snapshot}`).toBeDefined();
    return found![0];
  };
  const act = async (body: Record<string, unknown>) => {
    const res = await api<Answer>('POST', '/act', { targetId: ctx.d.targetId, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  it('a POST answered by a redirect: the new page says "Added to your cart", with a view and without one', async () => {
    let ref = refOf(await navigate('/product'), 'button', 'Add to cart');
    const bare = await act({ kind: 'click', ref });
    expect(bare.navigated).toBe(true);
    expect(bare.url).toBe(ctx.pages.url('/product?added=1'));
    expect(bare.messages).toEqual(['status "Added to your cart: Blue mug"']);

    ref = refOf(await navigate('/product'), 'button', 'Add to cart');
    const viewed = await act({ kind: 'click', ref, snapshot: 'diff' });
    expect(viewed.navigated).toBe(true);
    // Another document: the diff is its brief view, which keeps the message and the main heading
    // (said by the title the answer names, "Blue mug | Shop", so not again as a line).
    expect(viewed.snapshot!.brief).toBe(true);
    expect(viewed.title).toBe('Blue mug | Shop');
    expect(viewed.snapshot!.snapshot).toContain('status "Added to your cart: Blue mug"');
    expect(viewed.snapshot!.snapshot).toMatch(/button "Add to cart" \[e\d+\]/);

    // The CLI's line says it too.
    ref = refOf(await navigate('/product'), 'button', 'Add to cart');
    const said = await ctx.d.server.cli(['click', ref, '--target', ctx.d.targetId, '--profile', ctx.d.profile]);
    expect(unfenced(said.stdout)).toContain(
      'now on: Blue mug | Shop — /product?added=1\nstatus "Added to your cart: Blue mug"',
    );

    // A load without a view in a tab no walk has looked at yet says the page's messages too (its
    // walker is put in for them); a page with nothing to say them from answers none.
    const fresh = (await api('POST', '/tabs/open', { url: ctx.pages.url('/') })).body as { targetId: string };
    try {
      const load = (route: string) =>
        api<Answer>('POST', '/navigate', { url: ctx.pages.url(route), targetId: fresh.targetId, snapshot: 'none' });
      const plain = await load('/');
      expect(plain.status, JSON.stringify(plain.body)).toBe(200);
      expect(plain.body.messages).toBeUndefined();
      expect((await load('/product?added=1')).body.messages).toEqual(['status "Added to your cart: Blue mug"']);
    } finally {
      await api('DELETE', `/tabs/${fresh.targetId}`);
    }
  });

  it("a form the browser's own validation refuses: nothing sent, the field and the browser's reason in the answer", async () => {
    const loaded = await navigate('/signup');
    const email = refOf(loaded, 'textbox', 'Email');
    const submit = refOf(loaded, 'button', 'Create account');
    const refused = await act({ kind: 'click', ref: submit, snapshot: 'diff' });
    expect(refused.navigated).toBeUndefined();
    expect(refused.url).toBe(ctx.pages.url('/signup'));
    const reason = await ctx.d.inPage<string>("document.querySelector('input').validationMessage");
    expect(reason).not.toBe('');
    expect(refused.snapshot!.snapshot).toBe(
      `~ textbox "Email" [required] [invalid=${JSON.stringify(reason)}] [${email}]`,
    );

    // Tried again with a wrong address: the field's new reason; the same reason again is said again.
    await act({ kind: 'type', ref: email, text: 'ada' });
    const again = await act({ kind: 'click', ref: submit, snapshot: 'diff' });
    const now = await ctx.d.inPage<string>("document.querySelector('input').validationMessage");
    expect(now).not.toBe(reason);
    expect(again.snapshot!.snapshot).toContain(
      `textbox "Email" [required] [invalid=${JSON.stringify(now)}] [${email}]: "ada"`,
    );
    const same = await act({ kind: 'click', ref: submit, snapshot: 'diff' });
    expect(same.snapshot!.snapshot).toBe(
      `= textbox "Email" [required] [invalid=${JSON.stringify(now)}] [${email}]: "ada"`,
    );
    expect(await ctx.d.inPage<string>('location.pathname')).toBe('/signup');
  });

  it('says the words an action made appear anywhere on the page, and nothing for a re-render of the same words', async () => {
    const loaded = await navigate('/cart');
    const [qty, update, refresh] = [
      refOf(loaded, 'textbox', 'Quantity'),
      refOf(loaded, 'button', 'Update cart'),
      refOf(loaded, 'button', 'Refresh'),
    ];
    // A field's new value is no change of the page's words; nor is what the agent typed into an editable area.
    expect((await act({ kind: 'type', ref: qty, text: '3' })).changed).toBeUndefined();
    expect(
      (await act({ kind: 'type', ref: refOf(loaded, 'textbox', 'Gift note'), text: 'Happy birthday' })).changed,
    ).toBeUndefined();
    expect(await ctx.d.inPage<string>(`document.querySelector('[contenteditable]').textContent`)).toBe(
      'Happy birthday',
    );
    // The badge in the header and the total far below; the rebuilt rows and a hidden note are not said.
    const updated = await act({ kind: 'click', ref: update });
    expect(updated.changed).toEqual(['Cart (3)', 'Total: £30.00']);
    expect((await act({ kind: 'click', ref: refresh })).changed).toBeUndefined();
    // A brief view (which shows no text) says them too; the CLI's line says them as a diff says text that came.
    await act({ kind: 'type', ref: qty, text: '4' });
    const brief = await act({ kind: 'click', ref: update, snapshot: 'brief' });
    expect(brief.changed).toEqual(['Cart (4)', 'Total: £40.00']);
    await act({ kind: 'type', ref: qty, text: '5' });
    const said = await ctx.d.server.cli(['click', update, '--target', ctx.d.targetId, '--profile', ctx.d.profile]);
    expect(unfenced(said.stdout)).toBe(`clicked ${update}\n+ "Cart (5)"\n+ "Total: £50.00"\n`);
  });

  it('an action that swaps one view for another says so with a count, and only what the page announced', async () => {
    // Seven places appeared (the five rows, the count, the status line) as the mail's view went:
    // the first few words of the inbox in page order would tell nothing.
    const archived = await act({ kind: 'click', ref: refOf(await navigate('/mail-view'), 'button', 'Archive') });
    expect([archived.changed, archived.changedMore, archived.changedView]).toEqual([
      ['Conversation archived'],
      6,
      true,
    ]);
    const back = refOf(await navigate('/mail-view'), 'button', 'Back to inbox');
    const said = await ctx.d.server.cli(['click', back, '--target', ctx.d.targetId, '--profile', ctx.d.profile]);
    expect(said.stdout).toBe(`clicked ${back}\n~ 5 texts changed: another view\n`);
  });

  it('values written again in place are said, however many; a live list says a few of what it announced', async () => {
    const loaded = await navigate('/totals');
    const recalculated = await act({ kind: 'click', ref: refOf(loaded, 'button', 'Recalculate') });
    expect([recalculated.changed, recalculated.changedMore, recalculated.changedView]).toEqual([
      ['Subtotal: £20.00', 'Tax: £4.00', 'Shipping: £3.00'],
      1,
      undefined,
    ]);
    const found = await act({ kind: 'click', ref: refOf(loaded, 'button', 'Search') });
    expect([found.changed, found.changedMore, found.changedView]).toEqual([
      ['Result 0', 'Result 1', 'Result 2'],
      9,
      true,
    ]);
  });

  it('an alert that appears after a click on the same document is in the diff and in a brief view', async () => {
    const loaded = await navigate('/sign-in');
    expect(loaded.snapshot.snapshot).not.toContain('alert');
    const signIn = refOf(loaded, 'button', 'Sign in');
    const diffed = await act({ kind: 'click', ref: signIn, snapshot: 'diff' });
    expect(diffed.navigated).toBeUndefined();
    expect(diffed.snapshot!.snapshot).toBe('+ alert "Wrong password"');
    const brief = await act({ kind: 'click', ref: signIn, snapshot: 'brief' });
    expect(brief.snapshot!.snapshot.split('\n')).toContain('alert "Wrong password"');
  });

  it('a navigate while the page commits a load of its own ends on the address it was given', async () => {
    ctx.pages.requests.length = 0;
    const moving = await api('POST', '/navigate', { url: ctx.pages.url('/moving'), targetId: ctx.d.targetId });
    expect(moving.status, JSON.stringify(moving.body)).toBe(200);
    // The page's own load has gone out; its commit waits for the page's busy script.
    await until('the page to load another by itself', () => ctx.pages.requests.includes('/sign-in?moved'));
    const res = await api('POST', '/navigate', { url: ctx.pages.url('/cart'), targetId: ctx.d.targetId });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ url: ctx.pages.url('/cart'), title: 'Cart' });
  });
});
