#!/usr/bin/env node
// The `eca-api` command: the onboarding API (api/main.ts), configured from the environment.
import { load } from './load.js';

await load('api/main');
