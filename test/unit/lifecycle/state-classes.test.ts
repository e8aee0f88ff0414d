/** The state classes (domain/application-states.ts) against the statechart that carries them as tags. */
import assert from 'node:assert/strict';
import type { AnyStateNode } from 'xstate';
import {
  APPLICATION_STATES,
  hasTag,
  OWNER_TAGS,
  STATE_TAGS,
  stateClasses,
} from '../../../domain/application-states.js';
import type { ApplicationState, StateTag } from '../../../domain/application-states.js';
import { effectOf, lifecycleMachine, startLifecycle } from '../../../workflows/lifecycle/index.js';
import type { LifecycleEffect, LifecycleSnapshot } from '../../../workflows/lifecycle/index.js';

const ALL_TAGS = Object.keys(
  Object.fromEntries(Object.values(STATE_TAGS).flatMap((tags) => tags.map((tag) => [tag, true]))),
) as StateTag[];

/** Every state node of the chart, the root's children first. */
function nodesOf(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states).flatMap((child) => [child, ...nodesOf(child)]);
}

/** A state a snapshot rests in: a leaf that is not transient (`deciding` leaves at once through `always`). */
const resting = (node: AnyStateNode) =>
  (node.type === 'atomic' || node.type === 'final') && (node.always ?? []).length === 0;

const nodes = nodesOf(lifecycleMachine.root);
const restingNodes = nodes.filter(resting);

/** A snapshot resting in `node`, with a fresh application's context. */
function snapshotIn(node: AnyStateNode): LifecycleSnapshot {
  const { context } = startLifecycle({
    csid: 'CSID1',
    externalId: 'ext-1',
    application: { sha1: 'a'.repeat(40), length: 10, ref: 'aa/aa' },
  });
  const value = node.path.reduceRight<unknown>(
    (inner, key) => (inner === undefined ? key : { [key]: inner }),
    undefined,
  );
  return lifecycleMachine.resolveState({ value: value as LifecycleSnapshot['value'], context });
}

const effects = new Map<ApplicationState, LifecycleEffect['kind']>(
  restingNodes.map((node) => [node.key as ApplicationState, effectOf(snapshotIn(node)).kind]),
);
const statesWhere = (kinds: LifecycleEffect['kind'][]) =>
  APPLICATION_STATES.filter((state) => kinds.includes(effects.get(state)!));
const tagged = (tag: StateTag) => APPLICATION_STATES.filter((state) => hasTag(state, tag));
const sorted = (states: readonly string[]) => [...states].sort();

describe('state classes (domain/application-states, the chart’s tags)', function () {
  it('are the tags of the chart’s resting states, and no other node carries one', function () {
    assert.deepEqual(sorted(restingNodes.map((node) => node.key)), sorted(APPLICATION_STATES));
    for (const node of restingNodes) {
      assert.deepEqual(node.tags, [...STATE_TAGS[node.key as ApplicationState]], node.key);
    }
    for (const node of nodes.filter((other) => !resting(other))) assert.deepEqual(node.tags, [], node.key);
  });

  it('are what a snapshot of each state says it has', function () {
    for (const node of restingNodes) {
      const snapshot = snapshotIn(node);
      for (const tag of ALL_TAGS) assert.equal(snapshot.hasTag(tag), hasTag(node.key, tag), `${node.key} ${tag}`);
    }
  });

  it('give every state exactly one owner', function () {
    for (const state of APPLICATION_STATES) {
      const owners = OWNER_TAGS.filter((tag) => hasTag(state, tag));
      assert.equal(owners.length, 1, `${state}: ${owners.join(', ') || 'no owner'}`);
    }
  });

  it('follow each state’s kind in the chart and its effect', function () {
    const finalNodes = restingNodes.filter((node) => node.type === 'final').map((node) => node.key);
    assert.deepEqual(sorted(tagged('final')), sorted(finalNodes), 'final: the chart’s final states');
    assert.deepEqual(sorted(tagged('final')), sorted(statesWhere(['done'])), 'final: the states whose effect is done');
    assert.deepEqual(tagged('swept'), statesWhere(['poll']), 'swept: the states that wait for the account to change');
    assert.deepEqual(
      tagged('working'),
      statesWhere(['validate', 'create', 'submitDocuments', 'abandon', 'reset']),
      'working: the states that run a step',
    );
    for (const state of statesWhere(['awaitStaff', 'awaitReset'])) assert.ok(hasTag(state, 'needsStaff'), state);
    for (const state of tagged('needsClient')) assert.ok(hasTag(state, 'swept'), `${state}: the sweep tells`);
    for (const state of tagged('deadline')) {
      assert.ok(hasTag(state, 'needsClient') || hasTag(state, 'needsStaff'), `${state}: a deadline on someone`);
    }
  });

  it('name the states the engine has read them as, in the order it lists them', function () {
    assert.deepEqual(stateClasses.swept, ['tracking', 'needsDocuments', 'awaitingClient', 'awaitingApproval']);
    assert.deepEqual(stateClasses.deadline, [
      'needsCorrection',
      'needsDocuments',
      'awaitingClient',
      'unconfirmed',
      'blocked',
    ]);
    assert.deepEqual(stateClasses.final, ['open', 'rejected', 'closed', 'closedAsAbandoned']);
    assert.deepEqual(stateClasses.needsClient, ['needsDocuments', 'awaitingClient']);
    assert.deepEqual(stateClasses.needsStaff, ['needsCorrection', 'unconfirmed', 'blocked', 'abandoned']);
    assert.deepEqual(stateClasses.abandonment, ['abandoning', 'abandoned', 'closedAsAbandoned']);
    assert.deepEqual(tagged('waitsOnBrokerage'), ['tracking', 'awaitingApproval']);
  });

  it('are derived from the tags, each state once', function () {
    for (const [tag, states] of Object.entries(stateClasses)) {
      assert.deepEqual(sorted(states), sorted(tagged(tag as StateTag)), tag);
    }
  });
});
