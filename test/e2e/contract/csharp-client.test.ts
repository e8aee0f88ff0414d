/**
 * The C# client generated from docs/openapi.json (openapi-generator `csharp`, .NET 8): generated from the
 * document as it is, with the generator's own validation, and open to a newer server in its source: the
 * lifecycle state, the event type and the problem code are strings (a C# enum throws on a value it does not
 * know). It is not compiled here: its packages
 * come from NuGet, which this project's machines cannot reach (the Java client stands for the compiled ones).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateClient, workDir } from './support.js';

describe('contract: the generated C# client', function () {
  this.timeout(300_000);
  let work: Awaited<ReturnType<typeof workDir>>;
  let models: string;

  before(async function () {
    work = await workDir('csharp');
    await generateClient('csharp', work.spec, join(work.dir, 'client'));
    models = join(work.dir, 'client', 'src', 'Eca.Onboarding.Client', 'Model');
  });

  after(async function () {
    await work?.remove();
  });

  const model = (name: string) => readFile(join(models, `${name}.cs`), 'utf8');

  it('generates its models, open to lifecycle states, event types and problem codes it does not know', async function () {
    for (const [name, property] of [
      ['Application', 'LifecycleState'],
      ['LifecycleEvent', 'Type'],
      ['Problem', 'Code'],
    ] as const) {
      const source = await model(name);
      assert.match(
        source,
        new RegExp(`public string ${property} \\{ get; set; \\}`),
        `${name}.${property} is a string`,
      );
      assert.doesNotMatch(source, new RegExp(`public ${property}Enum`), `${name}.${property} is no closed enum`);
    }
  });
});
