#!/usr/bin/env node
// The `eca` command.
import process from 'node:process';
import { load } from './load.js';

const cli = /** @type {{ main: (argv: string[]) => Promise<number> }} */ (await load('client/cli/index'));
process.exitCode = await cli.main(process.argv);
