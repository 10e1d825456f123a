/**
 * `citewise worker`: runs research jobs without the HTTP server, on the queue of `--store` (the SQLite
 * database of the data directory, BullMQ on Redis, pg-boss on PostgreSQL). Start as many as the work needs,
 * on as many machines: each takes jobs from the shared queue, and a job whose worker died is finished by
 * another. It has the engine settings of `serve` (search providers, models, limits) so that it answers the
 * same way.
 */
import type { Command } from 'commander';
import { pino } from 'pino';
import { addSettingOptions, resolveServeConfig, type CommandFlags } from './config.ts';
import type { OpenEngine } from './mcp-command.ts';
import { SERVE_SETTINGS, settingLabel } from './settings.ts';

/** Registers `citewise worker`. */
export function registerWorkerCommand(program: Command, openEngine: OpenEngine): void {
  const command = program
    .command('worker')
    .description('Run research jobs (POST /v1/research) from the --store queue, without the HTTP service.');
  addSettingOptions(command, SERVE_SETTINGS, (_name, setting) => setting.serveOnly !== true);
  command.action(async (flags: CommandFlags) => runWorker(flags, openEngine));
}

async function runWorker(flags: CommandFlags, openEngine: OpenEngine): Promise<void> {
  const config = resolveServeConfig(flags, process.env);
  if (config.jobWorkers === 0) {
    throw new Error(`a worker needs at least one job worker: ${settingLabel(SERVE_SETTINGS.jobWorkers)}`);
  }
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', '*.apiKey', '*.key'] });
  const opened = await openEngine(config, logger);
  // Its queue was given: the engine's workers started with it. stdout holds JSON log lines only (as serve's);
  // a person at a terminal reads it on stderr.
  if (process.stderr.isTTY) {
    process.stderr.write(`citewise worker running ${config.jobWorkers} research job workers\n`);
  }
  logger.info({ workers: config.jobWorkers, search: config.search }, 'worker ready');
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, 'worker stopping: running jobs restart on another worker');
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await opened.close();
  process.exit(0);
}
