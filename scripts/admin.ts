// `npm run admin -- <command>`: the operator commands (scripts/adminCommands.ts has them and
// their usage) on the configured database. Prints the command's answer; exit status 2 for input
// it refuses (with the usage text), 1 for a failure.
import { adminCommand } from './adminCommands.ts';

const result = await adminCommand(process.argv.slice(2));
if (result.out) console.log(result.out);
if (result.err) console.error(result.err);
if (result.status !== 0) process.exit(result.status);
