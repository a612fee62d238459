import { describe, expect, it } from 'vitest';
import { toWireError } from '../../extension/src/relay-connection';
import { attachRefusal } from '../../extension/src/tab-attachments';

describe('the extension reports errors the relay can act on', () => {
  it("keeps Chrome's protocol errors whole", () => {
    const error = new Error('{"code":-32601,"message":"\'Browser.getVersion\' wasn\'t found"}');
    expect(toWireError(error)).toEqual({
      code: 'cdp',
      message: "'Browser.getVersion' wasn't found",
      cdp: { code: -32601, message: "'Browser.getVersion' wasn't found" },
    });
  });

  it('marks a tab that is gone', () => {
    expect(toWireError(new Error('Debugger is not attached to the tab with id: 5.')).code).toBe('tab_gone');
    expect(toWireError(new Error('No tab with id: 5.')).code).toBe('tab_gone');
    expect(toWireError('weird').code).toBe('extension_error');
  });

  it('refuses browser pages in words, before chrome.debugger throws', () => {
    expect(attachRefusal('chrome://settings')).toMatch(/browser pages \(chrome:\/\/\) cannot be handed to the agent/);
    expect(attachRefusal('chrome-extension://abc/options.html')).toMatch(/cannot be handed/);
    expect(attachRefusal('https://example.com/')).toBeUndefined();
    expect(attachRefusal('about:blank')).toBeUndefined();
  });
});
