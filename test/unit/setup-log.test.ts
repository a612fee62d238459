// The record of what clients set up on a page session, replayed when Chrome gives the tab a
// fresh debugger session: each setting once, in first-set order, the latest parameters; a
// client that leaves takes its setup along.

import { describe, expect, it } from 'vitest';
import { isSetup, SetupLog } from '../../relay/cdp/setup-log';

describe('SetupLog', () => {
  it('replays each setting once, the latest last, and forgets what a leaving client set', () => {
    const log = new SetupLog<string>();
    log.record('a', 'Page.enable', {});
    log.record('a', 'Emulation.setDeviceMetricsOverride', { width: 1 });
    log.record('b', 'Page.enable', {});
    log.record('b', 'Emulation.setDeviceMetricsOverride', { width: 2 });
    log.record('a', 'Page.addScriptToEvaluateOnNewDocument', { source: 'x' }, '7');
    expect(log.commands().map((c) => [c.method, c.params])).toEqual([
      ['Page.enable', {}],
      ['Emulation.setDeviceMetricsOverride', { width: 2 }],
      ['Page.addScriptToEvaluateOnNewDocument', { source: 'x' }],
    ]);
    log.forget('b');
    expect(log.commands().find((c) => c.method.startsWith('Emulation'))!.params).toEqual({ width: 1 });
    log.undo('a', '7');
    expect(log.commands().map((c) => c.method)).toEqual(['Page.enable', 'Emulation.setDeviceMetricsOverride']);
    log.alias('7', '9');
    expect(log.current('7')).toBe('9');
    expect(log.current('8')).toBe('8');
  });

  it('knows setup from one-off commands', () => {
    for (const m of [
      'Runtime.enable',
      'Emulation.setFocusEmulationEnabled',
      'Network.setExtraHTTPHeaders',
      'Runtime.addBinding',
      'Target.setAutoAttach',
    ])
      expect(isSetup(m), m).toBe(true);
    for (const m of [
      'Runtime.evaluate',
      'DOM.setFileInputFiles',
      'Page.navigate',
      'Input.dispatchMouseEvent',
      'Page.setDocumentContent',
    ])
      expect(isSetup(m), m).toBe(false);
  });
});
