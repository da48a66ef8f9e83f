/** `speechgate logout`: forgets the stored server and key (the key itself stays valid: `speechgate keys revoke` ends it). */
import { Command } from 'commander';
import { configFile, removeConfig } from '../config.js';
import { action, type CommandContext } from '../context.js';

async function logout(ctx: CommandContext): Promise<void> {
  const file = configFile();
  const removed = await removeConfig(file);
  ctx.out.result({ loggedOut: removed, configFile: file }, removed ? `Logged out (removed ${file}).` : 'Not logged in: nothing stored.');
}

export function logoutCommand(): Command {
  return new Command('logout').description('forget the stored server and key').action(action(logout));
}
