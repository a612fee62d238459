// The `aria` snapshot: the accessibility tree as Chromium itself has it
// (Accessibility.getFullAXTree), flat and indented. For debugging and comparison; it hands out
// no refs, so the tab's earlier refs stay as they were.

import type { Page } from 'playwright-core';
import { ClawdError } from '../errors';
import { seconds, within } from '../time-limit';
import type { SnapshotRequest } from './agent-requests';
import { SNAPSHOT_TIMEOUT_MS } from './agent-requests';
import type { EngineSnapshot, SnapshotEngine } from './snapshot-engine';

interface AxNode {
  nodeId: string;
  parentId?: string;
  ignored: boolean;
  role?: { value?: string };
  name?: { value?: string };
}

/** Lines shown when the request sets no limit. */
const DEFAULT_LIMIT = 2_000;

export class AxTreeEngine implements SnapshotEngine {
  async take(page: Page, request: SnapshotRequest): Promise<EngineSnapshot> {
    const limit = request.limit ?? DEFAULT_LIMIT;
    const session = await page.context().newCDPSession(page);
    try {
      // A busy page can keep the accessibility tree waiting as long as it likes.
      const asked = session.send('Accessibility.getFullAXTree');
      const { nodes } = (await within(asked, SNAPSHOT_TIMEOUT_MS, () => new ClawdError('action_timeout', `snapshot: the page did not give its accessibility tree within ${seconds(SNAPSHOT_TIMEOUT_MS)}`))) as { nodes: AxNode[] };
      const depthOf = new Map<string, number>();
      const lines: string[] = [];
      for (const node of nodes) {
        const depth = node.parentId !== undefined ? (depthOf.get(node.parentId) ?? 0) + (node.ignored ? 0 : 1) : 0;
        depthOf.set(node.nodeId, depth);
        if (node.ignored || lines.length >= limit) continue;
        const name = node.name?.value ? ` ${JSON.stringify(node.name.value)}` : '';
        lines.push(`${'  '.repeat(depth)}- ${node.role?.value ?? 'unknown'}${name}`);
      }
      return { text: lines.join('\n'), refs: undefined };
    } finally {
      await session.detach().catch(() => {});
    }
  }
}
