import { writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { it } from 'vitest';
import { until } from '../helpers/chromium';
import { startE2e } from '../helpers/session';
it('upload through relay', async () => {
  const e2e = await startE2e();
  const tab = await e2e.browser.openTab(e2e.pages.url('/upload'));
  await e2e.attach(tab);
  const browser = await chromium.connectOverCDP(e2e.relay.cdpHttpUrl);
  const page = await until('page', () => browser.contexts()[0]?.pages()[0]);
  writeFileSync('/tmp/up.txt', 'hello');
  try { await page.setInputFiles('#file', '/tmp/up.txt', { timeout: 3000 }); console.log('setInputFiles ->', await page.textContent('#got')); } catch (e) { console.log('setInputFiles error:', (e as Error).message.split('\n')[0]); }
  try {
    const [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout: 3000 }), page.click('#file')]);
    await chooser.setFiles('/tmp/up.txt', { timeout: 3000 });
    console.log('filechooser ->', await page.textContent('#got'));
  } catch (e) { console.log('filechooser error:', (e as Error).message.split('\n')[0]); }
  await browser.close(); await e2e.close();
}, 60000);
