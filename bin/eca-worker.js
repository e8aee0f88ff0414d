#!/usr/bin/env node
// The `eca-worker` command: the engine's worker (workers/main.ts), configured from the environment.
import { load } from './load.js';

await load('workers/main');
