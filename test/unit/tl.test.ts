import { it } from 'vitest';
import { toolDefinitions } from '../../relay/mcp/mcp-tools';
it('size', () => {
  process.stdout.write(`all ${JSON.stringify({tools: toolDefinitions()}).length}\n`);
  for (const t of toolDefinitions()) process.stdout.write(`${t.name} ${JSON.stringify(t).length}\n`);
  process.stdout.write(JSON.stringify(toolDefinitions().find(t => t.name === 'act')) + '\n');
});
