/**
 * The `switchboard` command line (commander). It talks to the database directly, so it works
 * while the HTTP API is down; see src/cli/database.ts for how it finds the database.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { AccountError } from '../accounts/errors.js';
import { PHONE_CARRIERS, PHONE_NUMBER_TYPES, type PhoneCarrier, type PhoneNumberType } from '../accounts/phone-numbers.js';
import { VOICE_MODES, type VoiceMode } from '../accounts/voices.js';
import { pendingMigrations, runMigrations } from '../db/migrate.js';
import * as accounts from './account-commands.js';
import { doctor } from './doctor.js';
import { testCommand } from './test-command.js';
import { CliError, openSession, processIo, withDatabase, type CliIo, type Session } from './session.js';

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 2_147_483_647) throw new InvalidArgumentError('expected a whole number from 1');
  return Number(value);
}
function count(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 100_000) throw new InvalidArgumentError('expected a whole number from 0');
  return Number(value);
}

function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('switchboard')
    .description('Operate a Switchboard deployment: accounts, numbers, voices, the admin token, migrations, checks.\nUses DATABASE_URL when set, else the embedded PostgreSQL under DATA_DIR (./data).')
    .option('--json', 'print JSON instead of tables')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  const session = (): Session => openSession(io, Boolean(program.opts().json));
  const userArg = '<user>';
  const userHelp = 'user id or email';

  const users = program.command('users').description('user accounts');
  users.command('create')
    .description('create a user and its first API token')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--email <email>', 'email (unique)')
    .option('--max-tools <n>', 'plan limit of mid-call tools (default 5)', count)
    .option('--max-calls <n>', 'calls at a time (default 10)', positiveInt)
    .action((o: { name: string; email: string; maxTools?: number; maxCalls?: number }) => accounts.usersCreate(session(), o));
  users.command('list').description('list users').action(() => accounts.usersList(session()));
  users.command('disable').description("disable a user: its tokens stop working at once, its running campaigns stop").argument(userArg, userHelp)
    .action((ref: string) => accounts.usersDisable(session(), ref));
  users.command('enable').description('enable a disabled user again').argument(userArg, userHelp)
    .action((ref: string) => accounts.usersEnable(session(), ref));

  const tokens = program.command('tokens').description('API tokens of users');
  tokens.command('issue').description('issue another API token (shown once)').argument(userArg, userHelp)
    .action((ref: string) => accounts.tokensIssue(session(), ref));
  tokens.command('list').description("list a user's tokens (never the tokens themselves)").argument(userArg, userHelp)
    .action((ref: string) => accounts.tokensList(session(), ref));
  tokens.command('revoke').description('revoke a token at once').argument('<token-id>', 'id from `tokens list`', positiveInt)
    .option('--user <user>', 'only if the token is this user\'s')
    .action((id: number, o: { user?: string }) => accounts.tokensRevoke(session(), id, o.user));

  const numbers = program.command('numbers').description('phone numbers of users');
  numbers.command('add').description('add a phone number to a user').argument(userArg, userHelp).argument('<phone-number>', 'E.164, or national in DEFAULT_PHONE_REGION')
    .addOption(new Option('--type <type>', 'number type').choices(PHONE_NUMBER_TYPES).default('Normal'))
    .option('--country <code>', 'two-letter country (default: the number\'s)')
    .addOption(new Option('--carrier <carrier>', 'who owns the number').choices(PHONE_CARRIERS).default('sandbox'))
    .option('--carrier-sid <sid>', 'the carrier\'s id of the number (Twilio: PN…)')
    .action((ref: string, phone: string, o: { type: PhoneNumberType; country?: string; carrier: PhoneCarrier; carrierSid?: string }) => accounts.numbersAdd(session(), ref, phone, o));
  numbers.command('list').description('list phone numbers').option('--user <user>', 'only this user\'s')
    .action((o: { user?: string }) => accounts.numbersList(session(), o.user));
  numbers.command('remove').description('remove a phone number (call records keep it)').argument('<number-id>', 'id from `numbers list`', positiveInt)
    .action((id: number) => accounts.numbersRemove(session(), id));

  const voices = program.command('voices').description('voices assistants can use');
  voices.command('add').description('add a public voice, or a private one of a user')
    .requiredOption('--name <name>', 'voice name')
    .addOption(new Option('--mode <mode>', 'pipeline or multimodal').choices(VOICE_MODES).makeOptionMandatory())
    .option('--user <user>', 'private to this user')
    .option('--provider <name>', 'who speaks it: local (default), elevenlabs, openai, …')
    .option('--provider-voice-id <id>', "the provider's own voice id (default: the provider's default voice)")
    .action((o: { name: string; mode: VoiceMode; user?: string; provider?: string; providerVoiceId?: string }) => accounts.voicesAdd(session(), o));
  voices.command('list').description('list voices').option('--user <user>', 'those this user may use')
    .action((o: { user?: string }) => accounts.voicesList(session(), o.user));

  program.command('admin-token').description('the admin token').command('rotate')
    .description('replace the admin token with a new one (recovery for a lost token)')
    .action(() => accounts.adminTokenRotate(session()));

  program.command('migrate').description('apply pending database migrations').action(async () => {
    const s = session();
    await withDatabase(s, async ({ target, out }) => {
      const pending = await pendingMigrations(target.url);
      await runMigrations(target.url);
      if (out.json) return out.record({ applied: pending });
      out.note(pending.length ? `Applied ${pending.length} migration(s): ${pending.join(', ')}` : 'The schema is up to date.');
    }, { requireCurrentSchema: false });
  });

  program.command('doctor').description('check the database, public URL, providers and carriers; print fixes')
    .action(async () => setExit(await doctor(session())));

  program.command('test').description("run an assistant's test scenarios (YAML or JSON files, or folders of them); exit 0 all passed, 1 any failed, 2 unusable input")
    .argument('<file-or-folder...>', 'scenario files, or folders of them')
    .option('--assistant <id>', "the stored assistant to test (default: the suite's assistant.yaml)", positiveInt)
    .option('--junit <file>', 'also write the results as JUnit XML')
    .option('--concurrency <n>', 'runs at once (default 4)', positiveInt)
    .option('--url <url>', 'a running service to run them on (with --token)')
    .option('--token <token>', "the user's API token for --url")
    .action(async (targets: string[], o: { assistant?: number; junit?: string; concurrency?: number; url?: string; token?: string }) => setExit(await testCommand(session(), targets, o)));

  return program;
}

/** Runs one command line (without `node script`); returns the exit code instead of exiting. */
export async function runCli(args: string[], io: CliIo = processIo): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(io, (code) => (exitCode = code));
  try {
    await program.parseAsync(args, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CliError) {
      io.stderr(`${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof AccountError) {
      io.stderr(`${err.message}\n`);
      return 1;
    }
    io.stderr(`${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}
