import { describe, expect, it } from 'vitest';
import { DEFAULT_FILTER, matchesFilter } from '../../relay/cdp/target-info';

describe("Chrome's target filter", () => {
  it('by default takes pages and leaves browser and tab targets out', () => {
    expect(matchesFilter('page')).toBe(true);
    expect(matchesFilter('iframe', DEFAULT_FILTER)).toBe(true);
    expect(matchesFilter('tab')).toBe(false);
    expect(matchesFilter('browser')).toBe(false);
  });

  it("applies the first matching entry (Puppeteer's pages-excluded filter)", () => {
    const puppeteer = [{ type: 'page', exclude: true }, {}];
    expect(matchesFilter('page', puppeteer)).toBe(false);
    expect(matchesFilter('tab', puppeteer)).toBe(true);
    expect(matchesFilter('page', [{ type: 'tab' }])).toBe(false);
    expect(matchesFilter('page', [])).toBe(false);
  });
});
