import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { getStateNodes } from '@xstate/graph';
import { diagramBlock, extractBlock, LIFECYCLE_DOC, lifecycleDiagram } from '../../../scripts/lifecycle-diagram.js';
import { lifecycleMachine } from '../../../workflows/lifecycle/machine.js';

describe('lifecycle diagram', function () {
  it('shows every state and every event transition of the machine', function () {
    const diagram = lifecycleDiagram();
    for (const node of getStateNodes(lifecycleMachine.root)) {
      assert.match(diagram, new RegExp(`\\b${node.path.join('_')}\\b`), `state ${node.id} missing`);
      for (const event of Object.keys(node.on)) {
        assert.match(diagram, new RegExp(`${node.path.join('_')} --> \\S+ : ${event}\\b`), `${node.id} ${event}`);
      }
    }
  });

  it('in docs/lifecycle.md matches the machine (run `npm run diagram` after changing it)', async function () {
    const document = await readFile(LIFECYCLE_DOC, 'utf8');
    assert.equal(extractBlock(document), diagramBlock());
  });
});
