// Entry point of the bundled `clawd` bin (dist/clawd.js). `clawd --version` answers before any
// other code loads: agents call it to check the tool is there, and it should cost what Node does.
import { VERSION } from '../version';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  process.stdout.write(`${VERSION}\n`);
} else {
  // `clawd tabs | head -1`: the reader went away; that is not an error worth a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
  const { main } = await import('./main');
  const code = await main(argv);
  if (code >= 0) process.exitCode = code;
}
