// Files an agent asks for: screenshots (viewport, full page, one element; optionally with each
// ref's box and name drawn on for the shot) and PDFs, saved under the home with unique names.

import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ClawdError } from '../../errors';
import { seconds, within } from '../../time-limit';
import type { LabelBox } from '../snapshots/snapshot-engine';
import type { AriaNode } from '../snapshots/snapshot-render';

const MAX_LABELS = 150;
/** Drawing or removing the labels is one evaluate; a page stuck longer than this is not drawn on. */
const LABELS_MS = 10_000;

/** Width and height from a PNG or JPEG header. */
export function imageSize(buffer: Buffer): { width: number; height: number } {
  if (buffer.subarray(0, 8).toString('hex') === '89504e470d0a1a0a')
    return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
  if (buffer[0] === 0xff && buffer[1] === 0xd8) {
    let offset = 2;
    while (offset + 9 < buffer.length) {
      if (buffer[offset] !== 0xff) break;
      const marker = buffer[offset + 1]!;
      const length = buffer.readUInt16BE(offset + 2);
      // Start-of-frame markers carry the size (C0–CF, except C4 DHT, C8 JPG, CC DAC).
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
        return { height: buffer.readUInt16BE(offset + 5), width: buffer.readUInt16BE(offset + 7) };
      }
      offset += 2 + length;
    }
  }
  return { width: 0, height: 0 };
}

let sequence = 0;

/** Writes a capture under `dir` as <profile>-<time>-<n>.<ext> and returns the path. */
export async function saveCapture(dir: string, profile: string, extension: string, data: Buffer): Promise<string> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace('T', '-')
    .replace(/\.\d+Z$/, '');
  const file = path.join(dir, `${profile}-${stamp}-${++sequence}.${extension}`);
  await fs.writeFile(file, data, { mode: 0o600 });
  return file;
}

type Box = LabelBox['box'];

/**
 * Each labelled ref's box, from a fresh snapshot with boxes (refs are stable per element). The
 * contents of iframes are skipped: their boxes are in the iframe's own coordinates.
 */
export function labelBoxes(roots: Array<AriaNode | string>, labels: Map<string, string>): LabelBox[] {
  const found: LabelBox[] = [];
  const visit = (node: AriaNode | string) => {
    if (typeof node === 'string') return;
    const label = node.ref ? labels.get(node.ref) : undefined;
    const box = node.box as Box | undefined;
    if (label && box && box.width > 0 && box.height > 0) found.push({ label, box });
    if (node.role !== 'iframe') for (const child of node.children ?? []) visit(child);
  };
  for (const root of roots) visit(root);
  return found;
}

// Runs in the page (as script text: the relay is built without DOM types).
const DRAW_LABELS = `(({ items, scroll }) => {
  const root = document.createElement('div');
  root.id = '__clawd_labels';
  root.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;pointer-events:none;z-index:2147483647';
  for (const { label, box } of items) {
    const frame = document.createElement('div');
    frame.style.cssText = 'position:absolute;left:' + (box.x + scroll.x) + 'px;top:' + (box.y + scroll.y) + 'px;width:' + box.width + 'px;height:' + box.height + 'px;outline:2px solid #FF4500;box-sizing:border-box';
    const tag = document.createElement('span');
    tag.textContent = label;
    tag.style.cssText = 'position:absolute;left:-2px;top:-16px;background:#FF4500;color:#fff;font:bold 11px/14px sans-serif;padding:0 3px;border-radius:2px';
    frame.appendChild(tag);
    root.appendChild(frame);
  }
  document.documentElement.appendChild(root);
})`;

/** Takes `shot` with the labels drawn on the page, and always removes them afterwards. */
export async function withLabels(
  page: Page,
  boxes: LabelBox[],
  shot: () => Promise<Buffer>,
): Promise<{ buffer: Buffer; labels: number }> {
  const inPage = (script: string) =>
    within(
      page.evaluate(script),
      LABELS_MS,
      () =>
        new ClawdError(
          'action_timeout',
          `screenshot: the page did not answer within ${seconds(LABELS_MS)} while labels were drawn`,
        ),
    );
  const viewport = (await inPage('({ width: innerWidth, height: innerHeight, x: scrollX, y: scrollY })')) as {
    width: number;
    height: number;
    x: number;
    y: number;
  };
  const visible = boxes
    .filter(
      ({ box }) => box.x < viewport.width && box.y < viewport.height && box.x + box.width > 0 && box.y + box.height > 0,
    )
    .slice(0, MAX_LABELS);
  await inPage(`${DRAW_LABELS}(${JSON.stringify({ items: visible, scroll: { x: viewport.x, y: viewport.y } })})`);
  try {
    return { buffer: await shot(), labels: visible.length };
  } finally {
    await inPage("document.getElementById('__clawd_labels')?.remove()").catch(() => {});
  }
}
