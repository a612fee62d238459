// The CLI's one table: every command name is its own (a second `focus` once shadowed the tab
// command), and every command says what it does.

import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../relay/cli/command-table';

describe('the command table', () => {
  it('names each command once, each with a usage line and a summary', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    for (const command of COMMANDS) {
      expect(command.usage.startsWith(command.name), command.name).toBe(true);
      expect(command.summary.length, command.name).toBeGreaterThan(5);
    }
  });
});
