#!/usr/bin/env node
// The `eca-codec-server` command: the codec server for the Temporal UI and CLI (codec/main.ts).
import { load } from './load.js';

await load('codec/main');
