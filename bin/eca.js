#!/usr/bin/env node
// The `eca` command: runs the TypeScript CLI through tsx's loader.
import process from 'node:process';
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../client/cli/index.ts');
process.exitCode = await main(process.argv);
