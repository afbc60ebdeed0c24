// Live updates through the GraphQL clients the Mini App uses: Apollo Client 4
// and urql 6 subscribed over graphql-transport-ws (graphql-ws). Run by
// httpapi/clients_test.go (TestRealClientsLive), which starts a server that
// tails its table's stream and passes FRACTI_URL and two users' tokens.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApolloClient, InMemoryCache, HttpLink, gql, split } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { Client, cacheExchange, fetchExchange, subscriptionExchange } from '@urql/core';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const url = process.env.FRACTI_URL;
const wsUrl = url.replace(/^http/, 'ws');
const tokens = { alice: process.env.FRACTI_TOKEN_ALICE, bob: process.env.FRACTI_TOKEN_BOB };
const ids = { alice: process.env.FRACTI_USER_ALICE, bob: process.env.FRACTI_USER_BOB };

// How long to wait after the socket is acknowledged before acting on the
// assumption that the subscription is registered: the subscribe message
// follows connection_ack at once, and the server registers it on receipt.
const SETTLE_MS = 300;

const cleanups = [];
after(async () => {
  for (const f of cleanups.reverse()) await f();
});

// wsClient is a graphql-ws client that reports each connection's ack.
function wsClient(connectionParams, on = {}, options = {}) {
  const client = createClient({ url: wsUrl, webSocketImpl: WebSocket, connectionParams, on, ...options });
  cleanups.push(() => client.dispose());
  return client;
}

// deferred is a promise with its resolve and reject.
function deferred() {
  let resolve, reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

// within rejects when p does not settle in ms; what (a string, or a function
// called on timeout) says what was awaited.
function within(p, ms, what) {
  let timer;
  return Promise.race([
    p,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${typeof what === 'function' ? what() : what}`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

// http is a plain request to the API, as the other member's app would send.
async function http(token, query, variables = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

// sharedGroup: Alice creates a group and Bob joins it with an invite.
async function sharedGroup(title) {
  const group = (await http(tokens.alice, 'mutation($t: String!) { createGroup(input: {title: $t, currency: "USD"}) { id } }', { t: title })).createGroup.id;
  const invite = (await http(tokens.alice, 'mutation($g: ID!) { createInvite(groupId: $g, input: {maxUses: 1}) { secret } }', { g: group })).createInvite;
  await http(tokens.bob, 'mutation($i: String!) { joinGroup(invite: $i) { id } }', { i: invite.secret });
  return group;
}

// aliceSpends: Alice pays amount, split equally between Alice and Bob.
async function aliceSpends(group, amount, description) {
  const data = await http(
    tokens.alice,
    'mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }',
    { in: { groupId: group, amount, description, splitType: 'EQUAL', splits: [{ userId: ids.alice }, { userId: ids.bob }] } },
  );
  return data.createExpense.id;
}

const GROUP_FIELDS = `
  id
  expenses(first: 10) { edges { node { id description amount } } }
  balances { id currency net member { id userId } }`;

const GROUP = gql`query($g: ID!) { group(id: $g) { ${GROUP_FIELDS} } }`;

const GROUP_EVENTS = gql`subscription($g: ID!) { groupEvents(groupId: $g) {
  id type sequence syncToken
  subject { ... on Expense { id description amount group { ${GROUP_FIELDS} } } }
} }`;

test('Apollo: a groupEvents subscription updates a watched query through the normalized cache', async () => {
  const group = await sharedGroup('Live Apollo');

  const connected = deferred();
  const ws = wsClient({ Authorization: `Bearer ${tokens.bob}` }, { connected: () => connected.resolve() });
  const bob = new ApolloClient({
    link: split(
      ({ query }) => {
        const def = getMainDefinition(query);
        return def.kind === 'OperationDefinition' && def.operation === 'subscription';
      },
      new GraphQLWsLink(ws),
      new HttpLink({ uri: url, headers: { Authorization: `Bearer ${tokens.bob}` } }),
    ),
    cache: new InMemoryCache(),
  });
  cleanups.push(() => bob.stop());

  // The watched query: the group's screen.
  const results = [];
  let wake = () => {};
  const watch = bob.watchQuery({ query: GROUP, variables: { g: group } }).subscribe({
    next: (r) => { results.push(r); wake(); },
    error: (e) => { results.push({ error: e }); wake(); },
  });
  cleanups.push(() => watch.unsubscribe());
  // waitFor resolves with the first result (seen or to come) that pred accepts.
  const waitFor = (pred, ms, what) => within(new Promise((resolve) => {
    const check = () => {
      const r = results.find((x) => !x.error && x.data?.group && pred(x.data.group));
      if (r) resolve(r.data.group);
      else wake = check;
    };
    check();
  }), ms, what);

  const before = await waitFor(() => true, 10_000, 'the watched query\'s first result');
  assert.equal(before.id, group);
  assert.deepEqual(before.expenses.edges, [], 'no expense yet');
  assert.ok(before.balances.every((b) => Number(b.net) === 0), 'nobody owes anything yet');

  // Bob's subscription, whose results Apollo writes to its cache.
  const events = [];
  const sub = bob.subscribe({ query: GROUP_EVENTS, variables: { g: group } }).subscribe({
    next: (r) => events.push(r),
    error: (e) => events.push({ error: e }),
  });
  cleanups.push(() => sub.unsubscribe());
  await within(connected.promise, 10_000, 'the WebSocket connection');
  await sleep(SETTLE_MS);

  const expense = await aliceSpends(group, '30', 'Dinner');

  const updated = await waitFor(
    (g) => g.expenses.edges.some((e) => e.node.id === expense),
    10_000,
    () => `the watched query showing the new expense (subscription results so far: ${JSON.stringify(events)})`,
  );
  assert.deepEqual(updated.expenses.edges.map((e) => e.node), [{ __typename: 'Expense', id: expense, description: 'Dinner', amount: '30.00' }]);
  const net = Object.fromEntries(updated.balances.filter((b) => b.currency === 'USD').map((b) => [b.member.userId, b.net]));
  assert.equal(net[ids.bob], '-15.00', 'Bob owes his half');
  assert.equal(net[ids.alice], '15.00', 'Alice is owed it');
  for (const b of updated.balances) assert.equal(b.id, `${group}:${b.member.userId}:${b.currency}`);

  // It came by the subscription, not by a request of the watched query.
  const event = events.find((r) => r.data?.groupEvents?.type === 'EXPENSE_CREATED');
  assert.ok(event, `an EXPENSE_CREATED event: ${JSON.stringify(events)}`);
  assert.equal(event.data.groupEvents.subject.id, expense);
  assert.equal(event.data.groupEvents.id, `${group}:${event.data.groupEvents.sequence}`);
  assert.ok(event.data.groupEvents.syncToken);
  assert.equal(results.filter((r) => r.error).length, 0, 'the watched query never failed');
});

test('urql: myEvents over graphql-ws, then Group.changes(since) from its sync token is empty', async () => {
  const group = await sharedGroup('Live urql');

  const connected = deferred();
  const ws = wsClient({ Authorization: `Bearer ${tokens.bob}` }, { connected: () => connected.resolve() });
  const bob = new Client({
    url,
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query || '' };
          return { subscribe: (sink) => ({ unsubscribe: ws.subscribe(input, sink) }) };
        },
      }),
    ],
    fetchOptions: () => ({ headers: { Authorization: `Bearer ${tokens.bob}` } }),
  });

  // The last event of the group so far: the expense will be the next one.
  const history = await http(tokens.alice, 'query($g: ID!) { group(id: $g) { changes { events { sequence } hasMore } } }', { g: group });
  assert.equal(history.group.changes.hasMore, false);
  const last = history.group.changes.events.at(-1).sequence;

  const got = deferred();
  const seen = [];
  const sub = bob.subscription('subscription { myEvents { id type sequence syncToken } }', {}).subscribe((result) => {
    seen.push(result);
    if (result.error) got.reject(result.error);
    const e = result.data?.myEvents;
    if (e && e.id.startsWith(`${group}:`) && e.type === 'EXPENSE_CREATED') got.resolve(e);
  });
  cleanups.push(() => sub.unsubscribe());
  await within(connected.promise, 10_000, 'the WebSocket connection');
  await sleep(SETTLE_MS);

  await aliceSpends(group, '12.40', 'Taxi');
  const event = await within(got.promise, 10_000, () => `Bob's EXPENSE_CREATED event (so far: ${JSON.stringify(seen)})`);
  assert.equal(event.sequence, last + 1, 'the next event of the group');
  assert.equal(event.id, `${group}:${last + 1}`);
  assert.equal(typeof event.syncToken, 'string');
  assert.ok(event.syncToken.length > 0);

  const caughtUp = await bob.query(
    'query($g: ID!, $since: String) { group(id: $g) { id changes(since: $since) { events { sequence } token hasMore } } }',
    { g: group, since: event.syncToken },
    { requestPolicy: 'network-only' },
  ).toPromise();
  assert.equal(caughtUp.error, undefined);
  assert.deepEqual(caughtUp.data.group.changes.events, [], 'nothing after the event');
  assert.equal(caughtUp.data.group.changes.hasMore, false);
  assert.equal(caughtUp.data.group.changes.token, event.syncToken, 'the same token again when nothing is new');
});

// closeCode is the code the server closes a graphql-ws connection with.
async function closeCode(connectionParams) {
  const closed = deferred();
  const client = wsClient(connectionParams, { closed: (event) => closed.resolve(event) }, { retryAttempts: 0 });
  const failed = deferred();
  client.subscribe({ query: 'subscription { myEvents { id } }' }, {
    next: (r) => failed.reject(new Error(`unexpected result ${JSON.stringify(r)}`)),
    error: (e) => failed.resolve(e),
    complete: () => failed.reject(new Error('completed without an error')),
  });
  const event = await within(closed.promise, 10_000, 'the socket closing');
  await within(failed.promise, 10_000, 'the subscription failing');
  return event;
}

test('graphql-ws: refused credentials close the socket with 4403, none with 4401', async () => {
  const forged = await closeCode({ Authorization: `Bearer frt_${'A'.repeat(43)}` });
  assert.equal(forged.code, 4403, `closed with ${forged.code} ${forged.reason}`);
  assert.match(forged.reason, /^Forbidden/);

  const none = await closeCode({});
  assert.equal(none.code, 4401, `closed with ${none.code} ${none.reason}`);
  assert.match(none.reason, /^Unauthorized/);

  const garbage = await closeCode({ Authorization: 'Bearer fracti_forged' });
  assert.equal(garbage.code, 4403, `closed with ${garbage.code} ${garbage.reason}`);
});

test('graphql-ws: a subscription refused as it starts is an error, and the socket goes on', async () => {
  const group = (await http(tokens.alice, 'mutation { createGroup(input: {title: "Private", currency: "USD"}) { id } }')).createGroup.id;
  const client = wsClient({ Authorization: `Bearer ${tokens.bob}` }, {}, { retryAttempts: 0 });

  // Bob is not a member: graphql-ws hands the `error` message's errors to error().
  const refused = deferred();
  client.subscribe({ query: 'subscription($g: ID!) { groupEvents(groupId: $g) { id } }', variables: { g: group } }, {
    next: (r) => refused.reject(new Error(`a result instead of an error: ${JSON.stringify(r)}`)),
    error: (e) => refused.resolve(e),
    complete: () => refused.reject(new Error('completed instead of an error')),
  });
  const errors = await within(refused.promise, 10_000, 'the refusal');
  assert.ok(Array.isArray(errors), `the errors of the error message, not ${errors}`);
  assert.equal(errors[0].extensions.code, 'NOT_FOUND');

  // The same socket still answers.
  const me = deferred();
  client.subscribe({ query: '{ me { id } }' }, { next: (r) => me.resolve(r), error: (e) => me.reject(e), complete: () => {} });
  const result = await within(me.promise, 10_000, 'the query after the refusal');
  assert.equal(result.data.me.id, ids.bob);
});
